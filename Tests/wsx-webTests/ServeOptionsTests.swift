import ArgumentParser
import Testing
@testable import wsx_web

@Suite struct ServeOptionsTests {
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
