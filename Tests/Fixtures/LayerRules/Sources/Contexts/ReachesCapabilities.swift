import Capabilities  // breach: a context importing Capabilities (reachable through AlphaClient)
import Domain

func doubledDirectly(_ amount: Cents) -> Cents {
    TallyCapability().double(amount)
}
