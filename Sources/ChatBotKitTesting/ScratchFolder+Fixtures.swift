import Foundation

/// Real files of the kinds bots are sent, written into the folder: an image, a PDF, text, and a
/// program under a name that lies about it.
extension ScratchFolder {
    /// A real 1×1 PNG image.
    public func png(named name: String = "pixel.png") throws -> URL {
        let bytes: [UInt8] = [
            0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01,
            0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41,
            0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0, 0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00,
            0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
        ]
        return try write(Data(bytes), as: name)
    }

    /// A small, valid PDF.
    public func pdf(named name: String = "document.pdf") throws -> URL {
        let text = """
            %PDF-1.4
            1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
            2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj
            3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj
            trailer << /Root 1 0 R >>
            %%EOF

            """
        return try write(Data(text.utf8), as: name)
    }

    /// A text file.
    public func text(_ contents: String, named name: String = "notes.txt") throws -> URL {
        try write(Data(contents.utf8), as: name)
    }

    /// A real executable program (this system's `true`), saved under a name that lies about it,
    /// such as `holiday.png`: what a content-sniffing moderator must catch.
    public func executable(disguisedAs name: String = "holiday.png") throws -> URL {
        let program = ["/usr/bin/true", "/bin/true"].first { FileManager.default.isReadableFile(atPath: $0) } ?? "/bin/sh"
        return try write(try Data(contentsOf: URL(fileURLWithPath: program)), as: name)
    }
}
