import Foundation
import Logging

/// Sends `notification.reminder_due` when reminders come due. It sleeps until the next one is
/// due and is woken when one is set or moved, so an earlier time is not slept through. What
/// it sent is marked in the store, so a restart sends only what came due meanwhile.
final class ReminderAlarm: Sendable {
    private let wakeup = Wakeup()
    /// How long to sleep with nothing due: a reminder set meanwhile wakes the alarm anyway.
    private static let idleWait = Duration.seconds(3600)

    /// A reminder was set, moved or removed: look again at what is due next.
    func changed() { wakeup.raise() }

    /// Runs until the task is cancelled (the server's shutdown).
    func run(_ state: DevServerState) async {
        while !Task.isCancelled {
            let wait: Duration
            do {
                let next = try await state.sendDueReminders()
                wait = next.map { .milliseconds(max(0, Int64(($0.timeIntervalSinceNow * 1000).rounded(.up)))) } ?? Self.idleWait
            } catch {
                state.logger.warning("could not send due reminders; trying again in a second", metadata: ["error": "\(error)"])
                wait = .seconds(1)
            }
            await wakeup.wait(upTo: wait)
        }
    }
}
