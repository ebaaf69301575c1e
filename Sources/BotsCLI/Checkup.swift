/// The lines `bots doctor` prints, one per check, and whether any failed.
///
/// Each line starts with its verdict, padded so the subjects line up: `ok`, `note` (nothing
/// is wrong, but the bots will do something at start, such as create a channel), `FAIL`
/// (the bots would not work; the line says what to change) and `skip` (a check that needs
/// one that failed).
final class Checkup {
    enum Verdict: String {
        case ok, note, fail = "FAIL", skip
    }

    private(set) var failures = 0
    private(set) var notes = 0
    private var passed = 0

    func report(_ verdict: Verdict, _ subject: String, _ text: String) {
        switch verdict {
        case .ok: passed += 1
        case .note: notes += 1
        case .fail: failures += 1
        case .skip: break
        }
        let word = verdict.rawValue
        say(word + String(repeating: " ", count: max(1, 6 - word.count)) + subject + ": " + text)
    }

    /// The last line: what passed, and what to do when something did not.
    var summary: String {
        let noted = notes == 0 ? "" : ", \(counted(notes, "note"))"
        if failures == 0 { return "All \(passed) checks passed\(noted)." }
        return "\(counted(failures, "check")) failed (\(passed) passed\(noted)); the FAIL lines say what to change."
    }
}
