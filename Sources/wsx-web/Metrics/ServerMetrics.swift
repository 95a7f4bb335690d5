import Foundation
import Prometheus
import Synchronization

/// What `GET /metrics` reports, in Prometheus' text format: requests by route template and
/// status with their latency, open event streams, events delivered (and those a slow stream was
/// cut off before receiving: it replays them when it reconnects), posts, database write time,
/// outbox lag, mail (waiting, failed tries, given up), the process (`process_*`, as every
/// Prometheus client library names them) and what build this is (`wsx_build_info`).
///
/// One per server, handed to what records into it; nothing goes through swift-metrics' global
/// `MetricsSystem`, so tests run many servers in one process, each with its own numbers.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    /// Messages and replies posted.
    let posts: Counter
    /// Event frames written to live streams, one per stream.
    let eventsDelivered: Counter
    /// Frames a stream never got because it was cut off as a slow reader.
    let eventsDropped: Counter
    /// Streams cut off because their reader fell too far behind.
    let slowStreams: Counter
    /// Time of each shared transaction of message posts (`GroupCommit`): waiting for the writer,
    /// the statements and the commit. Timing every statement of every write through SQLite's
    /// profile trace cost a fifth of posting's throughput (bench: 2,528 → 1,915 posts/s).
    let databaseWrites: DurationHistogram
    private let openStreams: Gauge
    private let outboxLag: Gauge
    private let mailQueue: Gauge
    /// Tries to hand a mail to the mail server that failed (each is tried again, up to six times).
    let mailAttemptsFailed: Counter
    /// Mail given up on, kept with its error for the people who can act on it.
    private let mailGivenUp: Gauge
    private let process: ProcessGauges
    /// The CPU seconds already added to `process_cpu_seconds_total`, a counter that only goes up.
    private let cpuCounted = Mutex<Double>(0)
    /// The request metrics of each route, method and status, made once.
    private let routes = Mutex<[RouteKey: RouteMetrics]>([:])

    private struct RouteKey: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    private struct RouteMetrics {
        let count: Counter
        let latency: DurationHistogram
    }

    /// Latency buckets from a quarter of a millisecond (a cached page) to ten seconds.
    static let latencyBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    init() {
        func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "wsx", metricName: metric, unitName: unit, helpText: help)
        }
        posts = registry.makeCounter(descriptor: name("posts", "total", "Messages and replies posted."))
        eventsDelivered = registry.makeCounter(descriptor: name("events_delivered", "total",
                                                                "Live events written to open event streams, one per stream."))
        eventsDropped = registry.makeCounter(descriptor: name("events_dropped", "total",
                                                              "Live events a stream missed because it was cut off as a slow reader; it replays them on reconnecting."))
        slowStreams = registry.makeCounter(descriptor: name("event_streams_cut_off", "total",
                                                            "Event streams closed because their reader fell too far behind."))
        databaseWrites = registry.makeDurationHistogram(
            descriptor: name("database_write", "seconds",
                             "Time of each write transaction of message posts (on SQLite shared by the posts that arrive together): waiting for the writer, its statements and its commit."),
            buckets: Self.latencyBuckets)
        openStreams = registry.makeGauge(descriptor: name("event_streams_open", "", "Event streams open now."))
        outboxLag = registry.makeGauge(descriptor: name("outbox_lag", "events",
                                                        "Committed events not yet handed to the event streams."))
        mailQueue = registry.makeGauge(descriptor: name("mail_queue", "messages", "Mail waiting to be sent (retries included)."))
        mailAttemptsFailed = registry.makeCounter(descriptor: name("mail_attempts_failed", "total",
                                                                   "Tries to hand a mail to the mail server that failed; each mail is tried up to six times."))
        mailGivenUp = registry.makeGauge(descriptor: name("mail_failed", "messages",
                                                          "Mail given up on after its tries, or refused by the mail server for good."))
        process = ProcessGauges(registry: registry)
        registry.makeGauge(name: "wsx_build_info", labels: [("version", BuildInfo.version), ("swift", BuildInfo.swift)],
                           help: "The build of wsx-web answering: always 1, its version in the labels.").set(Double(1))
    }

    /// The `process_*` series.
    private struct ProcessGauges {
        let resident: Gauge, virtual: Gauge, openDescriptors: Gauge, maximumDescriptors: Gauge, startTime: Gauge
        let cpu: Counter

        init(registry: PrometheusCollectorRegistry) {
            resident = registry.makeGauge(name: "process_resident_memory_bytes", help: "Resident memory size in bytes.")
            virtual = registry.makeGauge(name: "process_virtual_memory_bytes", help: "Virtual memory size in bytes.")
            openDescriptors = registry.makeGauge(name: "process_open_fds", help: "Number of open file descriptors.")
            maximumDescriptors = registry.makeGauge(name: "process_max_fds", help: "Maximum number of open file descriptors.")
            startTime = registry.makeGauge(name: "process_start_time_seconds",
                                           help: "Start time of the process since unix epoch in seconds.")
            cpu = registry.makeCounter(name: "process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds.")
        }
    }

    /// Counts one answered request under its route template (never its path: paths hold tokens).
    func request(route: String, method: String, status: Int, took duration: Duration) {
        let key = RouteKey(route: route, method: method, status: status)
        let metrics = routes.withLock { routes in
            if let known = routes[key] { return known }
            let labels = [("route", route), ("method", method), ("status", "\(status)")]
            let made = RouteMetrics(
                count: registry.makeCounter(descriptor: MetricNameDescriptor(
                    namespace: "wsx", metricName: "http_requests", unitName: "total",
                    helpText: "HTTP requests answered, by route template, method and status."), labels: labels),
                latency: registry.makeDurationHistogram(descriptor: MetricNameDescriptor(
                    namespace: "wsx", metricName: "http_request_duration", unitName: "seconds",
                    helpText: "Time to answer HTTP requests, by route template, method and status."),
                    labels: labels, buckets: Self.latencyBuckets))
            routes[key] = made
            return made
        }
        metrics.count.increment()
        metrics.latency.record(duration)
    }

    /// The text a scrape gets, with the gauges read now.
    func exposition(openStreams streams: Int, outboxLag lag: Int64, mailQueue queued: Int, mailFailed failed: Int) -> String {
        openStreams.set(Double(streams))
        outboxLag.set(Double(lag))
        mailQueue.set(Double(queued))
        mailGivenUp.set(Double(failed))
        let now = ProcessStats.current()
        process.resident.set(now.residentBytes)
        process.virtual.set(now.virtualBytes)
        process.openDescriptors.set(now.openDescriptors)
        process.maximumDescriptors.set(now.maximumDescriptors)
        process.startTime.set(now.startTimeSeconds)
        let added = cpuCounted.withLock { counted in
            defer { counted = max(counted, now.cpuSeconds) }
            return max(0, now.cpuSeconds - counted)
        }
        process.cpu.increment(by: added)
        return registry.emitToString()
    }
}
