import ChatBotKit

extension ConfigNode {
    /// A schedule like `mon 09:00`, `daily 18:30 Europe/Berlin` or `every 1h` (see `Schedule.init(parsing:)`).
    public func schedule() throws(ConfigurationError) -> Schedule {
        let text = try string()
        do {
            return try Schedule(parsing: text)
        } catch {
            throw self.error(.badValue, "\(path) must be a schedule such as mon 09:00, daily 18:30 or every 1h; \(error.message)")
        }
    }
}
