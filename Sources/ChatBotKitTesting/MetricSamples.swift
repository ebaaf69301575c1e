/// The samples of a Prometheus text exposition (what `bots run` serves at `/metrics`, or a
/// registry's `emitToString()`), so tests can read one value:
///
/// ```swift
/// let samples = MetricSamples(registry.emitToString())
/// #expect(samples["chatbotkit_bot_deliveries_total", ["bot": "keeper", "trigger": "message"]] == 1)
/// ```
public struct MetricSamples: Sendable {
    /// One line's metric: its name and labels.
    public struct Key: Hashable, Sendable {
        /// The metric's name (for histograms with `_bucket`, `_sum` or `_count`).
        public let name: String
        /// Its labels.
        public let labels: [String: String]
    }

    /// Every sample, by name and labels.
    public let values: [Key: Double]

    /// The samples of `text`; comment lines and lines that are not samples are skipped.
    public init(_ text: String) {
        var values: [Key: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            let series = line[..<space]
            guard let open = series.firstIndex(of: "{") else {
                values[Key(name: String(series), labels: [:])] = value
                continue
            }
            values[Key(name: String(series[..<open]), labels: MetricSamples.labels(series[series.index(after: open)...].dropLast()))] = value
        }
        self.values = values
    }

    /// The value of `name` with exactly `labels`; nil when there is no such sample.
    public subscript(name: String, labels: [String: String] = [:]) -> Double? {
        values[Key(name: name, labels: labels)]
    }

    /// The sum of every sample of `name` whose labels include `labels` (0 when none).
    public func total(_ name: String, where labels: [String: String] = [:]) -> Double {
        values.filter { key, _ in key.name == name && labels.allSatisfy { key.labels[$0.key] == $0.value } }.values.reduce(0, +)
    }

    /// `a="1",b="x"` as a dictionary (values in quotes; `\"`, `\\` and `\n` escaped).
    private static func labels(_ text: Substring) -> [String: String] {
        var labels: [String: String] = [:]
        var rest = text[...]
        while let equals = rest.firstIndex(of: "=") {
            let name = rest[..<equals].trimmingPrefix(",")
            var value = ""
            var index = rest.index(after: rest.index(after: equals))  // past `="`
            var escaped = false
            while index < rest.endIndex {
                let character = rest[index]
                index = rest.index(after: index)
                if escaped {
                    value.append(character == "n" ? "\n" : character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    break
                } else {
                    value.append(character)
                }
            }
            labels[String(name)] = value
            rest = rest[index...]
        }
        return labels
    }
}
