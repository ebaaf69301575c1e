import ChatModels
import Foundation
import GRDB
import HTTPTypes
import Hummingbird

/// Uploads (streamed to disk part by part), deletions, and serving files behind signed links.
struct UploadRoutes {
    let state: DevServerState

    func register(on router: Router<DevRequestContext>) {
        router.post("/channels/:type/:id/file") { request, context in try await upload(request, context, isImage: false) }
        router.post("/channels/:type/:id/image") { request, context in try await upload(request, context, isImage: true) }
        router.delete("/channels/:type/:id/file") { request, context in try await delete(request, context, isImage: false) }
        router.delete("/channels/:type/:id/image") { request, context in try await delete(request, context, isImage: true) }
        router.get("/files/:fileId/:name") { request, context in try await serve(request, context) }
        router.head("/files/:fileId/:name") { request, context in try await describe(request, context) }
    }

    /// `POST /channels/{type}/{id}/file|image`: a multipart body whose `file` part is written to
    /// disk as it arrives, checked against the app's upload rules, and answered with a signed link.
    func upload(_ request: Request, _ context: DevRequestContext, isImage: Bool) async throws -> JSONReply {
        let settings = state.appSettings
        let policy = UploadPolicy(
            rules: isImage ? settings.imageUploadConfig : settings.fileUploadConfig, isImage: isImage,
            defaultSizeLimit: state.configuration.defaultUploadSizeLimit)
        let operation = policy.operation
        let principal = try await state.authenticate(request)
        let cid = try state.channelId(context, operation: operation)
        guard let contentType = request.headers[.contentType],
            let boundary = MultipartStreamParser.boundary(fromContentType: contentType)
        else {
            throw APIError.input(operation, "request Content-Type isn't multipart/form-data")
        }
        let overhead: Int64 = 64 * 1024
        if let declared = request.headers[.contentLength].flatMap(Int64.init), declared > policy.sizeLimit + overhead {
            throw policy.tooLarge
        }
        try await state.store.read { db in
            _ = try DevServerState.requireChannel(db, cid, operation: operation)
            try DevServerState.requireAccess(db, cid, principal, operation: operation)
        }
        var receiver = UploadReceiver(policy: policy, temporaryPath: state.files.temporaryPath(), operation: operation)
        defer { receiver.discard() }
        var parser = MultipartStreamParser(boundary: boundary)
        var consumed: Int64 = 0
        for try await chunk in request.body {
            consumed += Int64(chunk.readableBytes)
            if consumed > policy.sizeLimit + overhead {
                throw receiver.failure ?? policy.tooLarge
            }
            do {
                for event in try parser.feed(chunk.readableBytesView) { try receiver.handle(event) }
            } catch let error as MultipartStreamParser.ParseError {
                throw APIError.input(operation, "malformed multipart body: \(error.reason)")
            }
        }
        do {
            try parser.finish()
        } catch {
            throw APIError.input(operation, "malformed multipart body: \(error.reason)")
        }
        if let failure = receiver.failure { throw failure }
        guard let upload = receiver.completedFile else {
            throw APIError.input(operation, "http: no such file; send the bytes in a part named \"file\"")
        }
        let uploader = principal.userId ?? receiver.userId
        let now = state.clock.now()
        if let uploader {
            // Checked once the body names the uploader (server tokens name it in a form field);
            // a refused file is still only in the receiver's temporary file, which is discarded.
            try await state.store.read { db in try DevServerState.requireNotBanned(db, cid, uploader, at: now, operation: operation) }
        }
        let id = UUID().uuidString.lowercased()
        try FileManager.default.moveItem(at: upload.path, to: state.files.path(for: id))
        let file = StoredFile(
            id: id, cid: cid, kind: isImage ? "image" : "file", name: upload.filename, mimeType: upload.mimeType, size: upload.size,
            uploadedBy: uploader, createdAt: now)
        try await state.store.write { db in try FilesTable.insert(db, file) }
        let link = state.signer.sign(path: FileStore.urlPath(id: id, name: upload.filename), baseURL: state.baseURL(for: request))
        var reply: JSONObject = ["file": .string(link)]
        if isImage {
            reply["thumb_url"] = .string(link)
            if let sizes = receiver.fields["upload_sizes"], let json = try? JSONParser().parse(sizes) { reply["upload_sizes"] = json }
        }
        return JSONReply(reply, status: .created)
    }

    /// `DELETE /channels/{type}/{id}/file|image?url=`: removes the bytes; the link then answers 404.
    func delete(_ request: Request, _ context: DevRequestContext, isImage: Bool) async throws -> JSONReply {
        let operation = isImage ? "DeleteImage" : "DeleteFile"
        let principal = try await state.authenticate(request)
        let cid = try state.channelId(context, operation: operation)
        guard let link = request.query("url"), !link.isEmpty else {
            throw APIError.input(operation, "url is a required query parameter")
        }
        guard let id = FileStore.fileId(inLink: link) else {
            throw APIError.notFound(operation, "\(link) is not a file of this server")
        }
        let now = state.clock.now()
        try await state.store.write { db in
            try DevServerState.requireAccess(db, cid, principal, operation: operation)
            guard let file = try FilesTable.fetch(db, id), file.deletedAt == nil, file.cid == cid else {
                throw APIError.notFound(operation, "file \(id) does not exist in channel \(cid.rawValue)")
            }
            try FilesTable.markDeleted(db, id, at: now)
        }
        try? FileManager.default.removeItem(at: state.files.path(for: id))
        return JSONReply()
    }

    /// `GET /files/{id}/{name}?Expires=&Signature=&Key-Pair-Id=`: the bytes, if the signature
    /// holds; with a `Range: bytes=…` header, only those (206), as a CDN answers it, so that a
    /// reader of a file's first bytes (a type sniffer) does not fetch all of a large one.
    func serve(_ request: Request, _ context: DevRequestContext) async throws -> Response {
        let (id, file) = try await servedFile(request, context)
        let path = state.files.path(for: id).path
        switch ByteRange.request(request.headers[.range], size: file.size) {
        case .whole:
            return Response(status: .ok, headers: headers(of: file), body: try await FileIO().loadFile(path: path, context: context))
        case .part(let range):
            var fields = headers(of: file)
            fields[.contentLength] = String(range.count)
            fields[.contentRange] = "bytes \(range.first)-\(range.last)/\(file.size)"
            let body = try await FileIO().loadFile(path: path, range: Int(range.first)...Int(range.last), context: context)
            return Response(status: .partialContent, headers: fields, body: body)
        case .unsatisfiable:
            var fields = headers(of: file)
            fields[.contentLength] = "0"
            fields[.contentRange] = "bytes */\(file.size)"
            return Response(status: .rangeNotSatisfiable, headers: fields)
        }
    }

    /// `HEAD /files/{id}/{name}?…`: the headers `GET` would send, without the bytes, as a CDN
    /// answers it (clients check with it that a link still works).
    func describe(_ request: Request, _ context: DevRequestContext) async throws -> Response {
        let (_, file) = try await servedFile(request, context)
        return Response(status: .ok, headers: headers(of: file))
    }

    /// The file a link points at, if its signature holds and the file is still there.
    private func servedFile(_ request: Request, _ context: DevRequestContext) async throws -> (id: String, file: StoredFile) {
        let id = context.parameters.get("fileId") ?? ""
        let path = request.uri.path
        if let problem = state.signer.problem(
            path: path, expires: request.query("Expires"),
            signature: request.query("Signature"))
        {
            throw APIError(code: 17, status: .forbidden, message: "access to \(path) denied: \(problem)")
        }
        guard let file = try await state.store.read({ db in try FilesTable.fetch(db, id) }), file.deletedAt == nil,
            FileManager.default.fileExists(atPath: state.files.path(for: id).path)
        else {
            throw APIError.notFound("GetFile", "file \(id) was deleted or never existed")
        }
        return (id, file)
    }

    private func headers(of file: StoredFile) -> HTTPFields {
        [.contentType: file.mimeType, .contentLength: String(file.size), .cacheControl: "private, max-age=60", .acceptRanges: "bytes"]
    }
}

/// Receives the parts of one upload: the `file` part goes to a temporary file (checked against
/// the policy as it grows), small fields are kept in memory.
struct UploadReceiver {
    struct CompletedFile {
        var path: URL
        var filename: String
        var mimeType: String
        var size: Int64
    }

    let policy: UploadPolicy
    let temporaryPath: URL
    let operation: String
    private(set) var failure: APIError?
    private(set) var completedFile: CompletedFile?
    private(set) var fields: [String: String] = [:]
    private var current: MultipartPartHeaders?
    private var fieldBytes: [UInt8] = []
    private var handle: FileHandle?
    private var written: Int64 = 0
    private var head: [UInt8] = []
    private var filename = ""
    private var mimeType = ""

    init(policy: UploadPolicy, temporaryPath: URL, operation: String) {
        self.policy = policy
        self.temporaryPath = temporaryPath
        self.operation = operation
    }

    var userId: String? {
        fields["user"].flatMap { try? JSONParser().parse($0) }.flatMap { $0["id"]?.stringValue }
    }

    mutating func handle(_ event: MultipartStreamParser.Event) throws {
        switch event {
        case .partBegin(let headers):
            current = headers
            fieldBytes = []
            guard headers.name == "file", failure == nil, completedFile == nil else { return }
            filename = headers.filename ?? "file"
            mimeType = headers.contentType.map(MIMEType.essence) ?? MIMEType.guess(forPathExtension: UploadPolicy.fileExtension(filename))
            if let problem = policy.problem(filename: filename, mimeType: mimeType) {
                failure = APIError.input(operation, problem)
                return
            }
            _ = FileManager.default.createFile(atPath: temporaryPath.path, contents: nil)
            handle = try FileHandle(forWritingTo: temporaryPath)
            written = 0
            head = []
        case .partBytes(let bytes):
            if current?.name == "file" {
                guard let handle, failure == nil else { return }
                written += Int64(bytes.count)
                if written > policy.sizeLimit {
                    failure = policy.tooLarge
                    discard()
                    return
                }
                if head.count < 512 { head.append(contentsOf: bytes.prefix(512 - head.count)) }
                try handle.write(contentsOf: bytes)
            } else if fieldBytes.count + bytes.count <= 64 * 1024 {
                fieldBytes.append(contentsOf: bytes)
            }
        case .partEnd:
            if current?.name == "file", let handle, failure == nil {
                try handle.close()
                self.handle = nil
                if policy.isImage, !UploadPolicy.imageBytesMatch(head, mimeType: mimeType) {
                    failure = APIError.input(operation, "File content is not a valid \(mimeType) image: the part's Content-Type does not match its bytes; upload it as a file instead")
                } else {
                    completedFile = CompletedFile(path: temporaryPath, filename: filename, mimeType: mimeType, size: written)
                }
            } else if let name = current?.name, name != "file" {
                fields[name] = String(decoding: fieldBytes, as: UTF8.self)
            }
            current = nil
        case .end:
            break
        }
    }

    /// Removes the temporary file unless it was handed over.
    mutating func discard() {
        try? handle?.close()
        handle = nil
        if FileManager.default.fileExists(atPath: temporaryPath.path) {
            try? FileManager.default.removeItem(at: temporaryPath)
        }
    }
}
