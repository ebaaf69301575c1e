import ChatModels
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The playground's files (HTML, CSS, JavaScript modules), read once from the dev server's
/// resource bundle, and the headers every one of them is served with.
///
/// They are plain files with no build step, so the bundle holds them as written. The page runs
/// no inline script: its Content-Security-Policy allows scripts from this origin only, and
/// connections to this origin and its WebSocket.
struct PlaygroundSite: Sendable {
    /// A file as served: its bytes and content type.
    struct Asset: Sendable {
        let bytes: ByteBuffer
        let contentType: String
    }

    /// By name (`app.js`); the page is `index.html`.
    let assets: [String: Asset]

    private static let contentTypes = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
        "svg": "image/svg+xml",
    ]

    /// The files of the `Site` folder of the module's resources.
    static func bundled() throws -> PlaygroundSite {
        // SwiftPM copies the folder into the bundle's resources; on Linux the bundle is a plain
        // folder beside the executable (or in the build folder), which is also where it looks.
        let bundle = Bundle.module
        let folder = bundle.url(forResource: "Site", withExtension: nil) ?? bundle.bundleURL.appendingPathComponent("Site")
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("index.html").path) else {
            throw DevServerError(code: .playgroundMissing, message: "the playground's files are missing from \(folder.path)")
        }
        return try PlaygroundSite(folder: folder)
    }

    /// The files of `folder` that have a known type; others (and subfolders) are not served.
    init(folder: URL) throws {
        var assets: [String: Asset] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            guard let type = PlaygroundSite.contentTypes[(name as NSString).pathExtension] else { continue }
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            assets[name] = Asset(bytes: ByteBuffer(bytes: data), contentType: type)
        }
        self.assets = assets
    }

    /// The response for the file `name`, or nil when there is none of that name.
    func response(for name: String, authority: String?) -> Response? {
        guard let asset = assets[name] else { return nil }
        var headers = PlaygroundSite.securityHeaders(authority: authority)
        headers[.contentType] = asset.contentType
        headers[.contentLength] = String(asset.bytes.readableBytes)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: asset.bytes))
    }

    /// The bots' own renderers module, read now so that an edit shows on the next reload; a
    /// file that cannot be read is a 404 that says why (the page then goes on without it).
    func renderers(from file: URL, authority: String?) throws -> Response {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw APIError.notFound("Playground", "the playground renderers \(file.path) cannot be read: \(FileErrorText.describe(error))")
        }
        var headers = PlaygroundSite.securityHeaders(authority: authority)
        headers[.contentType] = PlaygroundSite.contentTypes["js"]
        headers[.contentLength] = String(data.count)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Scripts and styles from this origin only (no inline script, no `eval`); connections to
    /// this origin and its WebSocket; images and media also from other sites (link previews);
    /// no plugins, no framing, no form posts, no `<base>`.
    static func securityHeaders(authority: String?) -> HTTPFields {
        let socket = authority.map { " ws://\($0)" } ?? ""
        let policy = [
            "default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'\(socket)",
            "img-src 'self' data: blob: http: https:", "media-src 'self' blob: http: https:", "object-src 'none'",
            "base-uri 'none'", "frame-ancestors 'none'", "form-action 'none'",
        ].joined(separator: "; ")
        return [
            HTTPField.Name("Content-Security-Policy")!: policy, HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "no-referrer", .cacheControl: "no-cache",
        ]
    }
}
