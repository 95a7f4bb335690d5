/// The coin store: balance, packs, what coins are, and the purchase history.
public struct StorePage: Sendable {
    public var balance: Int
    public var packs: [PackView]
    public var history: [PurchaseRow]
    public var hasHistory: Bool
    public var isSandbox: Bool
    /// Whether coins can be bought here (`--payments` is not off).
    public var isSelling: Bool

    public init(balance: Int, packs: [PackView], history: [PurchaseRow], isSandbox: Bool, isSelling: Bool) {
        self.balance = balance
        self.packs = packs
        self.history = history
        self.hasHistory = !history.isEmpty
        self.isSandbox = isSandbox
        self.isSelling = isSelling
    }
}

public struct PackView: Sendable {
    public var item: String
    public var coins: Int
    public var priceText: String

    public init(item: String, coins: Int, priceText: String) {
        self.item = item
        self.coins = coins
        self.priceText = priceText
    }
}

public struct PurchaseRow: Sendable {
    public var timestamp: String
    public var timeText: String
    public var pack: String
    public var amountText: String
    public var statusText: String
    public var status: String
    /// For a pending payment the gateway already knows: where to ask again.
    public var checkURL: String?

    public init(timestamp: String, timeText: String, pack: String, amountText: String, statusText: String, status: String,
                checkURL: String?) {
        self.timestamp = timestamp
        self.timeText = timeText
        self.pack = pack
        self.amountText = amountText
        self.statusText = statusText
        self.status = status
        self.checkURL = checkURL
    }
}

/// The page after paying: what happened, in words.
public struct StoreResultPage: Sendable {
    public var succeeded: Bool
    public var isPending: Bool
    public var heading: String
    public var message: String
    public var balance: Int
    public var checkURL: String?

    public init(succeeded: Bool, isPending: Bool, heading: String, message: String, balance: Int, checkURL: String?) {
        self.succeeded = succeeded
        self.isPending = isPending
        self.heading = heading
        self.message = message
        self.balance = balance
        self.checkURL = checkURL
    }
}

/// The sandbox gateway's own checkout page (marked TEST).
public struct SandboxCheckoutPage: Sendable {
    public var merchantUid: String
    public var amount: Int
    public var currency: String
    public var name: String
    public var amountText: String

    public init(merchantUid: String, amount: Int, currency: String, name: String, amountText: String) {
        self.merchantUid = merchantUid
        self.amount = amount
        self.currency = currency
        self.name = name
        self.amountText = amountText
    }
}

/// The page that opens PortOne's payment window through its SDK.
public struct PortOneCheckoutPage: Sendable {
    public var merchantCode: String
    public var pg: String
    public var merchantUid: String
    public var amount: Int
    public var name: String
    public var buyerEmail: String
    public var completeURL: String
    public var sdkURL: String
    public var scriptURL: String

    public init(merchantCode: String, pg: String, merchantUid: String, amount: Int, name: String, buyerEmail: String,
                completeURL: String, sdkURL: String, scriptURL: String) {
        self.merchantCode = merchantCode
        self.pg = pg
        self.merchantUid = merchantUid
        self.amount = amount
        self.name = name
        self.buyerEmail = buyerEmail
        self.completeURL = completeURL
        self.sdkURL = sdkURL
        self.scriptURL = scriptURL
    }
}
