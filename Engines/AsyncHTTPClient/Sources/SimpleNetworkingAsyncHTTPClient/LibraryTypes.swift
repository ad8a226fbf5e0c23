import SimpleNetworking

// The library's types under names of their own: SwiftNIO has an `HTTPHeaders` and an `HTTPMethod` too, and the module
// name `SimpleNetworking` is also the client's type name, so `SimpleNetworking.HTTPHeaders` cannot name them. This file
// imports the library alone, so here the plain names are the library's.

/// The library's header list.
typealias LibraryHeaders = HTTPHeaders
/// One field of the library's header list.
typealias LibraryHeaderField = HTTPHeaders.Field
