import ChatModels
import CoreMetrics

/// What one event connection reports, with its user as a dimension. Its handles are made once
/// (per event type as types appear): making one per event asks the backend to look the metric up
/// each time, which cost a Prometheus-backed bot about a tenth of its throughput.
final class ConnectionMetrics: Sendable {
    private let eventsByType: CountersByKey<EventType>
    private let duplicates: Counter
    private let invalidFrames: Counter
    private let syncedEvents: Counter
    private let unsyncedChannels: Counter
    private let connections: Counter
    private let isConnected: Gauge
    private let watchedChannels: Gauge

    init(client: ClientMetrics, user: String) {
        let factory = client.factory
        let dimensions = [("user", user)]
        eventsByType = CountersByKey(label: "chatbotkit_events_total", dimensions: dimensions, keyDimension: "type", factory: factory)
        duplicates = Counter(label: "chatbotkit_duplicate_events_total", dimensions: dimensions, factory: factory)
        invalidFrames = Counter(label: "chatbotkit_invalid_frames_total", dimensions: dimensions, factory: factory)
        syncedEvents = Counter(label: "chatbotkit_synced_events_total", dimensions: dimensions, factory: factory)
        unsyncedChannels = Counter(label: "chatbotkit_unsynced_channels_total", dimensions: dimensions, factory: factory)
        connections = Counter(label: "chatbotkit_connections_total", dimensions: dimensions, factory: factory)
        isConnected = Gauge(label: "chatbotkit_connected", dimensions: dimensions, factory: factory)
        watchedChannels = Gauge(label: "chatbotkit_watched_channels", dimensions: dimensions, factory: factory)
    }

    /// An event passed on to the reader.
    func delivered(_ type: EventType) { eventsByType.increment(type) }

    /// An event dropped because it came before (a reconnect, `/sync`, or both `message.new` and
    /// `notification.message_new`).
    func duplicateDropped() { duplicates.increment() }

    /// A frame that is not a valid event.
    func invalidFrame() { invalidFrames.increment() }

    /// Events `/sync` brought back after a reconnect (or to catch up).
    func synced(_ count: Int) { syncedEvents.increment(by: count) }

    /// A channel whose gap `/sync` refused to heal (too many events since).
    func unsyncedChannel() { unsyncedChannels.increment() }

    /// A session established (the first connection, then each reconnect).
    func connected() {
        connections.increment()
        isConnected.record(1)
    }

    /// How many channels the connection watches now.
    func watching(_ count: Int) { watchedChannels.record(count) }

    /// A session lost (or closed on shutdown).
    func disconnected() { isConnected.record(0) }
}
