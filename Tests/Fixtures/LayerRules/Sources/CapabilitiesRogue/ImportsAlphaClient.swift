import AlphaClient  // breach: a capability importing a client
import Axiom

public func alphaName() -> String {
    String(describing: AlphaClient.self)
}
