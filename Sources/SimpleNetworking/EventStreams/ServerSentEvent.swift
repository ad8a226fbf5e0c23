/// One event of a `text/event-stream` response, as the HTML standard's event-stream interpretation dispatches it.
///
/// A server writes an event as lines of `field: value` ended by an empty line:
///
/// ```text
/// id: 42
/// event: progress
/// data: {"done": 3, "of": 10}
///
/// ```
///
/// Several `data` lines join with a line feed, so `data` holds every line the server wrote, without the last line
/// feed. A block of lines with no `data` line is no event.
public struct ServerSentEvent: Sendable, Hashable {
    /// The last event ID in force when the event was dispatched: the value of the most recent `id` field, in this
    /// event or an earlier one (also across reconnections), or else the `Last-Event-ID` header the request set,
    /// which the stream resumes from. `nil` when neither set one; empty when the server reset it with an empty `id`
    /// field.
    public var id: String?
    /// The event's type, from its `event` field; `"message"` when the event has none or an empty one.
    public var event: String
    /// The event's data: the values of its `data` fields, joined with a line feed (`"\n"`). May be empty.
    public var data: String
    /// The reconnection time in milliseconds that a valid `retry` field of this event's block asked for; `nil`
    /// when the block had none. The server's latest valid `retry` lasts beyond its event, until the next one.
    public var retry: Int?

    /// Creates an event, for example for a test that compares what a stream yields.
    /// - Parameters:
    ///   - id: The last event ID in force; `nil` (the default) when none was ever set.
    ///   - event: The event type; `"message"` by default.
    ///   - data: The data, lines joined with a line feed.
    ///   - retry: The reconnection time in milliseconds the event's block carried; `nil` by default.
    public init(id: String? = nil, event: String = "message", data: String, retry: Int? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
    }
}
