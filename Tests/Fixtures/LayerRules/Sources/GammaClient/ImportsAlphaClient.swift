import AlphaClient  // breach: a client importing another client
import Axiom

public func alphaName() -> String {
    String(describing: AlphaClient.self)
}
