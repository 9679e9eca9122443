import AlphaClient  // breach: a handler importing a client (reachable through Contexts)

func clientTypeName() -> String {
    String(describing: AlphaClient.self)
}
