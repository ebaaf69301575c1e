import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("Message reminders against the dev server")
struct ReminderTests {
    @Test("a reminder is set, listed soonest first, moved, saved for later and removed, per user and message")
    func lifecycle() async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            try await admin.upsertUsers([User(id: "ann"), User(id: "bob")])
            for user in ["ann", "bob"] { try await admin.join("messaging:club", as: user) }
            let channel = admin.channel("messaging:club")
            let plan = try await channel.sendMessage(text: "plan", as: "bob")
            let call = try await channel.sendMessage(text: "call the gym", as: "bob")
            let ann = server.userClient("ann")
            let later = Date().addingTimeInterval(3600)
            let reminder = try await ann.createReminder(for: plan.id, at: later)
            #expect(reminder.userId == "ann" && reminder.cid == "messaging:club" && reminder.message?.text == "plan")
            #expect(abs((reminder.remindAt ?? .distantPast).timeIntervalSince(later)) < 0.001 && !reminder.isDue())
            let saved = try await ann.createReminder(for: call.id)
            #expect(saved.remindAt == nil && !saved.isDue(at: .distantFuture), "a message saved for later is never due")
            try await admin.createReminder(for: call.id, at: Date().addingTimeInterval(60), as: "bob")

            #expect(try await ann.queryReminders().reminders.map(\.messageId) == [plan.id, call.id], "timed first, saved for later last")
            #expect(try await ann.queryReminders(dueBy: Date()).reminders.isEmpty)
            #expect(try await ann.queryReminders(dueAfter: Date()).reminders.map(\.messageId) == [plan.id], "saved for later is never due")
            #expect(try await ann.queryReminders(dueAfter: later).reminders.isEmpty)
            let first = try await ann.queryReminders(limit: 1)
            #expect(first.reminders.map(\.messageId) == [plan.id] && first.next != nil)
            #expect(try await ann.queryReminders(limit: 1, next: first.next).reminders.map(\.messageId) == [call.id])
            #expect(try await admin.queryReminders(in: "messaging:other", as: "ann").reminders.isEmpty)
            #expect(try await admin.queryReminders(as: "bob").reminders.map(\.messageId) == [call.id], "bob's own")

            let moved = try await ann.updateReminder(for: plan.id, at: Date().addingTimeInterval(-1))
            #expect(moved.isDue() && (moved.updatedAt ?? .distantPast) >= (moved.createdAt ?? .distantFuture))
            #expect(try await ann.queryReminders(dueBy: Date()).reminders.map(\.messageId) == [plan.id])
            let reset = try await ann.setReminder(for: plan.id, at: later)
            let count = try await ann.queryReminders().reminders.count
            #expect(!reset.isDue() && count == 2, "setting it again moves the one reminder")
            try await ann.deleteReminder(for: plan.id)
            #expect(try await ann.queryReminders().reminders.map(\.messageId) == [call.id])
        }
    }

    @Test("a second reminder of a message, an unknown or deleted message, a non-member, and a reminder that is not there are refused")
    func refusals() async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            try await admin.upsertUsers([User(id: "ann"), User(id: "outsider")])
            try await admin.join("messaging:club", as: "ann")
            let message = try await admin.channel("messaging:club").sendMessage(text: "hello", as: "ann")
            let ann = server.userClient("ann")
            try await ann.createReminder(for: message.id)
            await expectRefused(4, "user ann already has a reminder for message \(message.id); change it with PATCH") {
                try await ann.createReminder(for: message.id, at: Date())
            }
            await expectRefused(16, "message with id ghost does not exist") { try await ann.createReminder(for: "ghost") }
            await expectRefused(4, "user outsider is not a member of channel messaging:club") {
                try await admin.createReminder(for: message.id, as: "outsider")
            }
            await expectRefused(16, "user ann has no reminder for message ghost") { try await ann.updateReminder(for: "ghost", at: nil) }
            await expectRefused(16, "user ann has no reminder for message ghost") { try await ann.deleteReminder(for: "ghost") }
            try await admin.deleteMessage(message.id)
            await expectRefused(4, "message \(message.id) is deleted; it cannot have a reminder") {
                try await admin.createReminder(for: message.id, as: "admin")
            }
            #expect(try await ann.queryReminders().reminders.count == 1, "nothing refused was kept; a soft deletion keeps the reminder")
            try await admin.deleteMessage(message.id, hard: true)
            #expect(try await ann.queryReminders().reminders.isEmpty, "a message deleted for good takes its reminders")
        }
    }
}
