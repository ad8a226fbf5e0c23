import Foundation

// Three forms per verb (<doc:RequestsAndResponses>):
//   SimpleNetworking.get("/path")            an unbound request, run later with execute(on:)
//   api.get("/path")                         a request bound to api, run with execute(on:) or response()
//   api.get("/path") { $0.on(...) }          configured and executed at once
extension SimpleNetworking {
    /// Makes an unbound request; run it with ``SimpleRequest/execute(on:)``.
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The path below the base URL.
    /// - Returns: The request.
    public static func request(_ method: HTTPMethod, _ path: String) -> SimpleRequest {
        SimpleRequest(method: method, path: path)
    }

    /// Makes a request bound to this client; run it with ``SimpleRequest/response(on:)`` or
    /// ``SimpleRequest/execute(on:)``.
    ///
    /// With `values`, `path` is a ``PathTemplate``: each `{name}` placeholder is filled with its value, sent as one
    /// percent-encoded path segment.
    ///
    /// ```swift
    /// let user = try await api.get("/users/{id}", path: ["id": "42"]).decode(User.self)
    /// ```
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The path below the base URL; with `values`, a template with `{name}` placeholders.
    ///   - values: A value for each placeholder of the template, or `nil` (the default): `path` is used as it is,
    ///     braces included. A template that cannot be filled (as ``PathTemplate/path(with:)`` describes) makes the
    ///     request fail with ``SimpleNetworkingError/invalidURL(reason:)`` when it runs, and nothing is sent.
    /// - Returns: The request.
    public func request(_ method: HTTPMethod, _ path: String, path values: [String: String]? = nil) -> SimpleRequest {
        guard let values else { return SimpleRequest(method: method, path: path).bind(to: self) }
        do throws(SimpleNetworkingError) {
            return SimpleRequest(method: method, path: try PathTemplate(path).path(with: values)).bind(to: self)
        } catch {
            let request = SimpleRequest(method: method, path: path).bind(to: self)
            request.state.withLock { $0.parts.buildProblem = error }
            return request
        }
    }

    /// Makes a request bound to this client for an absolute URL, bypassing the base URL on purpose.
    ///
    /// Default headers are added only when `url` has the base URL's origin.
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - url: An absolute `http` or `https` URL.
    /// - Returns: The request.
    public func request(_ method: HTTPMethod, url: URL) -> SimpleRequest {
        SimpleRequest(method: method, url: url).bind(to: self)
    }

    /// Makes a request bound to this client, lets `configure` add handlers, and executes it.
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The path below the base URL.
    ///   - configure: Adds handlers and options; returns the request.
    /// - Returns: The running request.
    @discardableResult
    public func request(
        _ method: HTTPMethod, _ path: String, _ configure: (SimpleRequest) -> SimpleRequest
    ) -> SimpleRequest {
        configure(request(method, path)).execute(on: self)
    }

    /// An unbound `GET`. - Parameter path: The path below the base URL. - Returns: The request.
    public static func get(_ path: String) -> SimpleRequest { request(.get, path) }
    /// An unbound `POST`. - Parameter path: The path below the base URL. - Returns: The request.
    public static func post(_ path: String) -> SimpleRequest { request(.post, path) }
    /// An unbound `PUT`. - Parameter path: The path below the base URL. - Returns: The request.
    public static func put(_ path: String) -> SimpleRequest { request(.put, path) }
    /// An unbound `PATCH`. - Parameter path: The path below the base URL. - Returns: The request.
    public static func patch(_ path: String) -> SimpleRequest { request(.patch, path) }
    /// An unbound `DELETE`. - Parameter path: The path below the base URL. - Returns: The request.
    public static func delete(_ path: String) -> SimpleRequest { request(.delete, path) }
    /// An unbound `HEAD`. - Parameter path: The path below the base URL. - Returns: The request.
    public static func head(_ path: String) -> SimpleRequest { request(.head, path) }

    /// A `GET` bound to this client, as ``request(_:_:path:)`` makes.
    /// - Parameters:
    ///   - path: The path below the base URL; with `values`, a template with `{name}` placeholders.
    ///   - values: A value for each placeholder, or `nil` (the default) for a plain path.
    /// - Returns: The request.
    public func get(_ path: String, path values: [String: String]? = nil) -> SimpleRequest {
        request(.get, path, path: values)
    }
    /// A `POST` bound to this client, as ``request(_:_:path:)`` makes.
    /// - Parameters:
    ///   - path: The path below the base URL; with `values`, a template with `{name}` placeholders.
    ///   - values: A value for each placeholder, or `nil` (the default) for a plain path.
    /// - Returns: The request.
    public func post(_ path: String, path values: [String: String]? = nil) -> SimpleRequest {
        request(.post, path, path: values)
    }
    /// A `PUT` bound to this client, as ``request(_:_:path:)`` makes.
    /// - Parameters:
    ///   - path: The path below the base URL; with `values`, a template with `{name}` placeholders.
    ///   - values: A value for each placeholder, or `nil` (the default) for a plain path.
    /// - Returns: The request.
    public func put(_ path: String, path values: [String: String]? = nil) -> SimpleRequest {
        request(.put, path, path: values)
    }
    /// A `PATCH` bound to this client, as ``request(_:_:path:)`` makes.
    /// - Parameters:
    ///   - path: The path below the base URL; with `values`, a template with `{name}` placeholders.
    ///   - values: A value for each placeholder, or `nil` (the default) for a plain path.
    /// - Returns: The request.
    public func patch(_ path: String, path values: [String: String]? = nil) -> SimpleRequest {
        request(.patch, path, path: values)
    }
    /// A `DELETE` bound to this client, as ``request(_:_:path:)`` makes.
    /// - Parameters:
    ///   - path: The path below the base URL; with `values`, a template with `{name}` placeholders.
    ///   - values: A value for each placeholder, or `nil` (the default) for a plain path.
    /// - Returns: The request.
    public func delete(_ path: String, path values: [String: String]? = nil) -> SimpleRequest {
        request(.delete, path, path: values)
    }
    /// A `HEAD` bound to this client, as ``request(_:_:path:)`` makes.
    /// - Parameters:
    ///   - path: The path below the base URL; with `values`, a template with `{name}` placeholders.
    ///   - values: A value for each placeholder, or `nil` (the default) for a plain path.
    /// - Returns: The request.
    public func head(_ path: String, path values: [String: String]? = nil) -> SimpleRequest {
        request(.head, path, path: values)
    }

    /// Configures and executes a `GET`.
    /// - Parameters:
    ///   - path: The path below the base URL.
    ///   - configure: Adds handlers and options; returns the request.
    /// - Returns: The running request.
    @discardableResult
    public func get(_ path: String, _ configure: (SimpleRequest) -> SimpleRequest) -> SimpleRequest {
        request(.get, path, configure)
    }

    /// Configures and executes a `POST`.
    /// - Parameters:
    ///   - path: The path below the base URL.
    ///   - configure: Adds a body, handlers and options; returns the request.
    /// - Returns: The running request.
    @discardableResult
    public func post(_ path: String, _ configure: (SimpleRequest) -> SimpleRequest) -> SimpleRequest {
        request(.post, path, configure)
    }

    /// Configures and executes a `PUT`.
    /// - Parameters:
    ///   - path: The path below the base URL.
    ///   - configure: Adds a body, handlers and options; returns the request.
    /// - Returns: The running request.
    @discardableResult
    public func put(_ path: String, _ configure: (SimpleRequest) -> SimpleRequest) -> SimpleRequest {
        request(.put, path, configure)
    }

    /// Configures and executes a `PATCH`.
    /// - Parameters:
    ///   - path: The path below the base URL.
    ///   - configure: Adds a body, handlers and options; returns the request.
    /// - Returns: The running request.
    @discardableResult
    public func patch(_ path: String, _ configure: (SimpleRequest) -> SimpleRequest) -> SimpleRequest {
        request(.patch, path, configure)
    }

    /// Configures and executes a `DELETE`.
    /// - Parameters:
    ///   - path: The path below the base URL.
    ///   - configure: Adds handlers and options; returns the request.
    /// - Returns: The running request.
    @discardableResult
    public func delete(_ path: String, _ configure: (SimpleRequest) -> SimpleRequest) -> SimpleRequest {
        request(.delete, path, configure)
    }

    /// Configures and executes a `HEAD`.
    /// - Parameters:
    ///   - path: The path below the base URL.
    ///   - configure: Adds handlers and options; returns the request.
    /// - Returns: The running request.
    @discardableResult
    public func head(_ path: String, _ configure: (SimpleRequest) -> SimpleRequest) -> SimpleRequest {
        request(.head, path, configure)
    }
}
