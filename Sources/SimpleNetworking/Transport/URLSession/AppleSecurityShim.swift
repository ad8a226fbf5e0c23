// swift-format-ignore-file: AlwaysUseLowerCamelCase
//
// Why this file exists: the Apple-platform branch of the URLSession transport (`SessionTLS`) answers TLS challenges
// with the Security framework, CryptoKit and URLSession APIs that only Apple's SDKs have. CI type-checks that branch
// on Linux by building with `-DAPPLE_BRANCH_CHECK` (see `.ci/run`), where none of those exist. This file declares
// exactly the symbols the branch uses, with the names and Swift signatures of Apple's SDK documentation, so that the
// branch type-checks the way it would against the real SDK. Every body traps: the file is compiled only into that
// check (`APPLE_BRANCH_CHECK` on a platform without the Security framework), never into a build that runs.
//
// Core Foundation's types are not visible on Linux; they are stood in for by the Foundation classes they bridge to on
// Apple platforms (`CFData` by `NSData`, ...), so that the branch's bridging casts (`data as CFData`,
// `array as? [SecCertificate]`) type-check here as they do there. The SDK's constants are `let`s; here they are
// computed, as a global of a non-Sendable class cannot be stored in Swift 6. Add a symbol only when the branch uses it.

#if APPLE_BRANCH_CHECK && !canImport(Security)
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    // MARK: Core Foundation

    typealias CFData = NSData
    typealias CFArray = NSArray
    typealias CFDictionary = NSDictionary
    typealias CFString = NSString
    typealias CFError = NSError
    typealias CFAllocator = NSObject
    typealias CFTypeRef = AnyObject
    typealias CFTypeID = UInt
    typealias CFIndex = Int
    typealias OSStatus = Int32

    func CFGetTypeID(_ cf: CFTypeRef!) -> CFTypeID { fatalError("Apple-branch type-check only") }
    func CFErrorGetCode(_ err: CFError!) -> CFIndex { fatalError("Apple-branch type-check only") }

    // MARK: Security

    final class SecTrust {}
    final class SecCertificate {}
    final class SecKey {}
    final class SecIdentity {}

    let errSecSuccess: OSStatus = 0
    var kSecAttrKeyType: CFString { "type" }
    var kSecAttrKeySizeInBits: CFString { "bsiz" }
    var kSecAttrKeyTypeRSA: CFString { "42" }
    var kSecAttrKeyTypeECSECPrimeRandom: CFString { "73" }
    var kSecImportExportPassphrase: CFString { "passphrase" }
    var kSecImportItemIdentity: CFString { "identity" }
    var kSecImportItemCertChain: CFString { "chain" }
    var kSecImportToMemoryOnly: CFString { "memory" }

    func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
        fatalError("Apple-branch type-check only")
    }
    func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData { fatalError("Apple-branch type-check only") }
    func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? { fatalError("Apple-branch type-check only") }
    func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray?) -> OSStatus {
        fatalError("Apple-branch type-check only")
    }
    func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus {
        fatalError("Apple-branch type-check only")
    }
    func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool {
        fatalError("Apple-branch type-check only")
    }
    func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? { fatalError("Apple-branch type-check only") }
    func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? { fatalError("Apple-branch type-check only") }
    func SecKeyCopyExternalRepresentation(_ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?)
        -> CFData?
    { fatalError("Apple-branch type-check only") }
    func SecPKCS12Import(_ pkcs12_data: CFData, _ options: CFDictionary, _ items: UnsafeMutablePointer<CFArray?>)
        -> OSStatus
    { fatalError("Apple-branch type-check only") }
    func SecIdentityGetTypeID() -> CFTypeID { fatalError("Apple-branch type-check only") }
    func SecIdentityCopyCertificate(
        _ identityRef: SecIdentity, _ certificateRef: UnsafeMutablePointer<SecCertificate?>
    ) -> OSStatus { fatalError("Apple-branch type-check only") }

    /// The Security framework's `tls_protocol_version_t`, as Swift imports it.
    enum tls_protocol_version_t: UInt16 {
        case TLSv10 = 0x0301
        case TLSv11 = 0x0302
        case TLSv12 = 0x0303
        case TLSv13 = 0x0304
        case DTLSv10 = 0xFEFF
        case DTLSv12 = 0xFEFD
    }

    // MARK: CryptoKit

    struct SHA256Digest: Sequence {
        func makeIterator() -> [UInt8].Iterator { fatalError("Apple-branch type-check only") }
    }

    struct SHA256 {
        typealias Digest = SHA256Digest
        static func hash<D: DataProtocol>(data: D) -> SHA256.Digest { fatalError("Apple-branch type-check only") }
    }

    // MARK: URLSession (Apple-only members; FoundationNetworking marks the two methods unavailable)

    var NSURLAuthenticationMethodServerTrust: String { "NSURLAuthenticationMethodServerTrust" }
    var NSURLAuthenticationMethodClientCertificate: String { "NSURLAuthenticationMethodClientCertificate" }

    extension URLProtectionSpace {
        var serverTrust: SecTrust? { fatalError("Apple-branch type-check only") }
    }

    extension URLCredential {
        convenience init(trust: SecTrust) { fatalError("Apple-branch type-check only") }
        convenience init(
            identity: SecIdentity, certificates certArray: [Any]?, persistence: URLCredential.Persistence
        ) { fatalError("Apple-branch type-check only") }
    }

    extension URLSessionConfiguration {
        var tlsMinimumSupportedProtocolVersion: tls_protocol_version_t {
            get { fatalError("Apple-branch type-check only") }
            set { fatalError("Apple-branch type-check only") }
        }
    }
#endif
