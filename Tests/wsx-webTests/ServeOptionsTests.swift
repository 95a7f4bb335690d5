import ArgumentParser
import NIOCore
import Testing
@testable import wsx_web

@Suite(.timeLimit(.minutes(5))) struct ServeOptionsTests {
    @Test("the write delay of event streams comes from the flag, else the environment, else 10 ms; out of range is refused")
    func writeDelay() throws {
        let none = EnvironmentDefaults(values: [:])
        #expect(try ServeCommand.parse([]).resolvedConfig(environment: none).realtime.writeDelay == .milliseconds(10))
        #expect(try ServeCommand.parse(["--sse-write-delay", "0"]).resolvedConfig(environment: none).realtime.writeDelay == .zero)
        let env = EnvironmentDefaults(values: ["WSX_SSE_WRITE_DELAY": "3"])
        #expect(try ServeCommand.parse([]).resolvedConfig(environment: env).realtime.writeDelay == .milliseconds(3))
        #expect(try ServeCommand.parse(["--sse-write-delay", "7"]).resolvedConfig(environment: env).realtime.writeDelay == .milliseconds(7))
        #expect(throws: ValidationError.self) {
            try ServeCommand.parse(["--sse-write-delay", "5000"]).resolvedConfig(environment: none)
        }
        #expect(throws: ValidationError.self) {
            try ServeCommand.parse(["--sse-write-delay=-1"]).resolvedConfig(environment: none)
        }
    }
}

@Suite(.timeLimit(.minutes(5))) struct HardeningOptionsTests {
    let none = EnvironmentDefaults(values: [:])

    @Test("payments are off unless configured; --payment-gateway still works for one release, with a warning")
    func payments() throws {
        #expect(try ServeCommand.parse([]).resolvedConfig(environment: none).payments.mode == .off)
        #expect(try ServeCommand.parse(["--payments", "sandbox"]).resolvedConfig(environment: none).payments.mode == .sandbox)
        let env = EnvironmentDefaults(values: ["WSX_PAYMENTS": "sandbox"])
        #expect(try ServeCommand.parse([]).resolvedConfig(environment: env).payments.mode == .sandbox)
        #expect(try ServeCommand.parse(["--payments", "off"]).resolvedConfig(environment: env).payments.mode == .off)
        let old = try ServeCommand.parse(["--payment-gateway", "sandbox"])
        #expect(try old.resolvedConfig(environment: none).payments.mode == .sandbox)
        #expect(old.payments.notices(environment: none).first?.contains("deprecated") == true)
        #expect(try ServeCommand.parse([]).payments.notices(environment: none).isEmpty)
        #expect(throws: ValidationError.self) { try ServeCommand.parse(["--payments", "free"]).resolvedConfig(environment: none) }
        #expect(throws: ValidationError.self) { try ServeCommand.parse(["--payments", "portone"]).resolvedConfig(environment: none) }
    }

    @Test("connection and sign-in limits come from flags, else WSX_ variables, else their defaults")
    func limits() throws {
        let defaults = try ServeCommand.parse([]).resolvedConfig(environment: none)
        #expect(defaults.connections.requestHeadTimeout == .seconds(10))
        #expect(defaults.connections.idleTimeout == .seconds(75))
        #expect(defaults.connections.minimumBodyBytesPerSecond == 1024)
        #expect(defaults.connections.connections(forDescriptorLimit: 20_000) == 18_000)
        #expect(defaults.connections.connections(forDescriptorLimit: 1024) == 896)
        #expect(defaults.connections.connectionsPerAddress(cap: 18_000) == 4_500)
        #expect(defaults.connections.connectionsPerAddress(cap: 896) == 256)
        #expect(defaults.realtime.maxStreamsPerAccount == 20)
        #expect(defaults.loginLimits.perAccountAndAddress == 10 && defaults.loginLimits.perAccount == 100)
        #expect(defaults.signupLimit.limit == 20 && defaults.signupLimit.window == 3600)
        let flags = try ServeCommand.parse(["--request-head-timeout", "3s", "--idle-timeout", "2m", "--min-body-rate", "2KB",
                                            "--max-connections", "500", "--max-connections-per-address", "50",
                                            "--max-event-streams-per-account", "100", "--login-max-failures-per-account", "7",
                                            "--signup-max-per-ip", "1000"]).resolvedConfig(environment: none)
        #expect(flags.connections.requestHeadTimeout == .seconds(3))
        #expect(flags.connections.idleTimeout == .seconds(120))
        #expect(flags.connections.minimumBodyBytesPerSecond == 2048)
        #expect(flags.connections.connections(forDescriptorLimit: 20_000) == 500)
        #expect(flags.connections.connectionsPerAddress(cap: 500) == 50)
        #expect(flags.realtime.maxStreamsPerAccount == 100)
        #expect(flags.loginLimits.perAccount == 7)
        #expect(flags.signupLimit.limit == 1000)
        let env = EnvironmentDefaults(values: ["WSX_REQUEST_HEAD_TIMEOUT": "4", "WSX_MAX_EVENT_STREAMS_PER_ACCOUNT": "5",
                                               "WSX_SIGNUP_MAX_PER_IP": "3"])
        let fromEnv = try ServeCommand.parse([]).resolvedConfig(environment: env)
        #expect(fromEnv.connections.requestHeadTimeout == .seconds(4))
        #expect(fromEnv.realtime.maxStreamsPerAccount == 5)
        #expect(fromEnv.signupLimit.limit == 3)
        for bad in [["--request-head-timeout", "0"], ["--max-connections", "0"], ["--max-event-streams-per-account", "0"],
                    ["--signup-max-per-ip", "0"], ["--min-body-rate", "fast"]] {
            #expect(throws: ValidationError.self) { try ServeCommand.parse(bad).resolvedConfig(environment: none) }
        }
    }
}

@Suite(.timeLimit(.minutes(5))) struct OperatorOptionsTests {
    @Test("coins grant takes a negative --amount as a number, with or without =")
    func negativeAmount() throws {
        #expect(try CoinsCommand.Grant.parse(["--email", "a@example.com", "--amount", "-1000"]).amount == -1000)
        #expect(try CoinsCommand.Grant.parse(["--email", "a@example.com", "--amount=-5"]).amount == -5)
        #expect(try CoinsCommand.Grant.parse(["--amount", "-7", "--email", "a@example.com"]).email == "a@example.com")
    }

    @Test("--min-free-space: 64MB unless the flag or WSX_MIN_FREE_SPACE says otherwise; nonsense is refused")
    func minimumFreeSpace() throws {
        let none = EnvironmentDefaults(values: [:])
        #expect(try ServeCommand.parse([]).resolvedConfig(environment: none).minimumFreeBytes == 64 << 20)
        #expect(try ServeCommand.parse(["--min-free-space", "1GB"]).resolvedConfig(environment: none).minimumFreeBytes == 1 << 30)
        let env = EnvironmentDefaults(values: ["WSX_MIN_FREE_SPACE": "512KB"])
        #expect(try ServeCommand.parse([]).resolvedConfig(environment: env).minimumFreeBytes == 512 << 10)
        #expect(throws: ValidationError.self) { try ServeCommand.parse(["--min-free-space", "lots"]).resolvedConfig(environment: none) }
    }
}
