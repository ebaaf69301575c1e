import ChatLocking
import Foundation

/// Upload progress on standard error: a bar redrawn in place on a terminal; otherwise (a log
/// file, CI) one line per quarter, so a log gets a few lines instead of a hundred `\r`s.
final class ProgressBar: Sendable {
    private let enabled: Bool
    private let isTerminal: Bool
    /// The last percentage (terminal) or quarter (otherwise) written.
    private let shown = Locked<Int>(-1)

    init(enabled: Bool, isTerminal: Bool = isatty(STDERR_FILENO) == 1) {
        self.enabled = enabled
        self.isTerminal = isTerminal
    }

    /// Shows `fraction` (0...1) done; repeats of what is already shown write nothing.
    func show(_ fraction: Double) {
        guard enabled else { return }
        let percent = Int(min(max(fraction, 0), 1) * 100)
        let step = isTerminal ? percent : percent / 25 * 25
        let isNew = shown.withLock { shown in
            defer { shown = max(shown, step) }
            return step > shown
        }
        guard isNew else { return }
        if isTerminal {
            let width = 30
            let filled = percent * width / 100
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            FileHandle.standardError.write(Data("\rUploading [\(bar)] \(percent)%".utf8))
        } else {
            FileHandle.standardError.write(Data("Uploading: \(step)%\n".utf8))
        }
    }

    /// Ends the bar's line.
    func finish() {
        if enabled, isTerminal { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
