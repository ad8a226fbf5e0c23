import Foundation
import SimpleNetworking
import Testing

// The Swift blocks of the `///` comments in Sources/SimpleNetworking/Transfers/, between
// `SYMBOL-SAMPLE: File#name` and `SYMBOL-SAMPLE-END`: `ReadmeTests.SymbolDocs` checks that each comment shows its
// region verbatim.
enum TransferSymbolSamples {
    static func multipart(api: SimpleNetworking, photoURL: URL) async throws -> SimpleResponse {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Transfers/MultipartFormData.swift#form
        var form = MultipartFormData()
        form.append("Ada", name: "name")
        form.append(fileAt: photoURL, name: "photo", contentType: "image/jpeg")
        let response = try await api.post("/profile").body(multipart: form).response()
        // SYMBOL-SAMPLE-END
        return response
    }

    static func uploadFile(api: SimpleNetworking, archive: URL) async throws {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Transfers/MultipartFormData.swift#body-file
        _ = try await api.put("/backups/today").body(fileAt: archive).progress { print($0.bytesCompleted) }.response()
        // SYMBOL-SAMPLE-END
    }

    static func lines(api: SimpleNetworking) async throws {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Transfers/ResponseStreams.swift#lines
        for try await line in api.get("/events").lines() {
            print(line)
        }
        // SYMBOL-SAMPLE-END
    }

    static func download(api: SimpleNetworking) async throws -> SimpleResponse {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Transfers/SimpleRequest+Download.swift#download
        let file = URL(fileURLWithPath: "/tmp/archive.zip")
        let response = try await api.get("/archive.zip").download(to: file)
        print(response.fileURL?.path ?? "")
        // SYMBOL-SAMPLE-END
        return response
    }

    static func uploadProgress(api: SimpleNetworking, photo: URL) async throws {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Transfers/TransferProgress.swift#upload-progress
        _ = try await api.post("/photos").body(fileAt: photo)
            .uploadProgress { print("sent \($0.bytesCompleted) of \($0.bytesExpected ?? 0) bytes") }
            .response()
        // SYMBOL-SAMPLE-END
    }
}
