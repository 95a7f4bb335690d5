import Foundation
import Testing
@testable import wsx_web

@Suite(.timeLimit(.minutes(5))) struct DescriptorTableTests {
    @Test("the soft open-file limit goes up to the hard one, and the table is grown up front")
    func raisesLimitAndGrowsTable() throws {
        var limits = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits)
        let before = DescriptorTable.currentSize()
        let wanted = min(8192, Int(clamping: limits.rlim_max))
        try #require(before < wanted, "the test process already has a table of \(before)")

        let outcome = DescriptorTable.prepare(reserving: wanted)

        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits)
        #expect(outcome.limit == Int(clamping: limits.rlim_max))
        #expect(Int(clamping: limits.rlim_cur) == Int(clamping: limits.rlim_max))
        #expect(outcome.reserved >= wanted)
        #expect(DescriptorTable.currentSize() >= wanted)
        // No descriptor is left open at the top of the table.
        #expect(fcntl(Int32(wanted - 1), F_GETFD) == -1)
    }
}
