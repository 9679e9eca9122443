import Axiom
import Foundation
import Testing

/// Each run-time check of the validator, driven with hand-made facts: the
/// valid graph passes, and each breach is reported under its constraint only.
@Suite("Constraint validator")
struct ConstraintValidatorTests {
    static let capability = ComponentDescriptor(kind: .capability, type: "App.Storage", lifetime: .transient)
    static let client = ComponentDescriptor(kind: .statefulClient, type: "App.CartClient",
                                            dependencies: ["App.Storage"], lifetime: .singleton)
    static let pricing = ComponentDescriptor(kind: .statelessClient, type: "App.PricingClient",
                                             dependencies: ["App.Storage"], lifetime: .singleton)
    static let state = ComponentDescriptor(kind: .ownedState, type: "App.CartState", lifetime: .singleton,
                                           owners: ["App.CartClient"])
    static let context = ComponentDescriptor(kind: .context, type: "App.CartContext",
                                             dependencies: ["App.CartClient", "App.PricingClient"],
                                             lifetime: .perUsage)
    static let presentation = ComponentDescriptor(kind: .presentation, type: "CartRoutes",
                                                  dependencies: ["App.CartContext"], lifetime: .perUsage)
    static let orchestrator = ComponentDescriptor(kind: .orchestrator, type: "Axiom.AxiomOrchestrator",
                                                  lifetime: .singleton)

    static func instantiated(_ descriptor: ComponentDescriptor, _ count: Int) -> ComponentDescriptor {
        ComponentDescriptor(kind: descriptor.kind, type: descriptor.type, dependencies: descriptor.dependencies,
                            lifetime: descriptor.lifetime, owners: descriptor.owners, instancesCreated: count,
                            instancesLive: count)
    }

    static var valid: [ComponentDescriptor] {
        [instantiated(orchestrator, 1), instantiated(capability, 1), instantiated(client, 1),
         instantiated(pricing, 1), state, context, presentation]
    }

    static func graph(_ nodes: [(UInt64, String, Bool)], _ edges: [(UInt64, UInt64)],
                      distinct: Int? = nil) throws -> ContextGraphSnapshot {
        let json: [String: Any] = [
            "nodes": nodes.map { ["id": $0.0, "type": $0.1, "isRoot": $0.2] },
            "edges": edges.map { ["upstream": $0.0, "downstream": $0.1] },
            "distinctInstances": distinct ?? nodes.count,
        ]
        return try JSONDecoder().decode(ContextGraphSnapshot.self, from: JSONSerialization.data(withJSONObject: json))
    }

    static func validate(_ components: [ComponentDescriptor], graph: ContextGraphSnapshot? = nil,
                         factoryViolations: [String] = [], created: Int = 2,
                         orchestrators: Int = 1) throws -> ValidationReport {
        let graph = try graph ?? Self.graph([(1, "App.CartContext", true), (2, "App.CartContext", false)], [(1, 2)])
        return ConstraintValidator().validate(.init(
            components: components, contextGraph: graph, factoryViolations: factoryViolations,
            contextsCreatedByFactory: created, clientsInstantiated: true, liveOrchestrators: orchestrators))
    }

    static func failed(_ report: ValidationReport) -> Set<String> { Set(report.failures.map(\.constraint)) }

    @Test("a valid component graph passes all 15 checks")
    func validPasses() throws {
        let report = try Self.validate(Self.valid)
        #expect(report.passed)
        #expect(report.checks.count == 15)
    }

    @Test("2.1, 2.5 and 2.6 a client depending on a client is reported")
    func clientOnClient() throws {
        let bad = ComponentDescriptor(kind: .statefulClient, type: "App.CartClient",
                                      dependencies: ["App.Storage", "App.PricingClient"], lifetime: .singleton)
        let report = try Self.validate(Self.valid.map { $0.type == bad.type ? Self.instantiated(bad, 1) : $0 })
        #expect(Self.failed(report) == ["2.1", "2.5", "2.6"])
        #expect(report.check(.clientIsolation)?.violations == ["App.CartClient depends on client App.PricingClient"])
    }

    @Test("2.2 a context depending on a capability is reported")
    func contextOnCapability() throws {
        let bad = ComponentDescriptor(kind: .context, type: "App.CartContext",
                                      dependencies: ["App.CartClient", "App.Storage"], lifetime: .perUsage)
        let report = try Self.validate(Self.valid.map { $0.type == bad.type ? bad : $0 })
        #expect(Self.failed(report) == ["2.2"])
        #expect(report.check(.contextDependency)?.violations
                == ["App.CartContext depends on App.Storage (capability)"])
    }

    @Test("2.3 and 2.5 a capability with a dependency is reported")
    func capabilityWithDependency() throws {
        let logger = ComponentDescriptor(kind: .capability, type: "App.Logger", lifetime: .transient)
        let bad = ComponentDescriptor(kind: .capability, type: "App.Storage", dependencies: ["App.Logger"],
                                      lifetime: .transient)
        let report = try Self.validate(Self.valid.map { $0.type == bad.type ? Self.instantiated(bad, 1) : $0 }
                                       + [Self.instantiated(logger, 1)])
        #expect(Self.failed(report) == ["2.3", "2.5"])
    }

    @Test("2.4 a presentation bound to no context, two contexts or a client is reported")
    func presentationBinding() throws {
        for dependencies in [[], ["App.CartContext", "App.OtherContext"], ["App.CartClient"]] {
            let bad = ComponentDescriptor(kind: .presentation, type: "CartRoutes", dependencies: dependencies,
                                          lifetime: .perUsage)
            let other = ComponentDescriptor(kind: .context, type: "App.OtherContext", lifetime: .perUsage)
            let report = try Self.validate(Self.valid.map { $0.type == bad.type ? bad : $0 } + [other])
            #expect(Self.failed(report).contains("2.4"), "\(dependencies)")
        }
    }

    @Test("2.5 a dependency flowing upward is reported")
    func upwardFlow() throws {
        let bad = ComponentDescriptor(kind: .statelessClient, type: "App.PricingClient",
                                      dependencies: ["App.CartContext"], lifetime: .singleton)
        let report = try Self.validate(Self.valid.map { $0.type == bad.type ? Self.instantiated(bad, 1) : $0 })
        #expect(Self.failed(report) == ["2.1", "2.5"])
        #expect(report.check(.unidirectionalFlow)?.violations
                == ["App.PricingClient (statelessClient) → App.CartContext (context) flows upward"])
        let unknown = ComponentDescriptor(kind: .context, type: "App.CartContext", dependencies: ["App.Ghost"],
                                          lifetime: .perUsage)
        let report2 = try Self.validate(Self.valid.map { $0.type == unknown.type ? unknown : $0 })
        #expect(report2.check(.unidirectionalFlow)?.violations == ["App.CartContext depends on unregistered App.Ghost"])
    }

    @Test("2.7 a state with two owners, or owned by a stateless client, is reported")
    func stateOwnership() throws {
        let twoOwners = ComponentDescriptor(kind: .ownedState, type: "App.CartState", lifetime: .singleton,
                                            owners: ["App.CartClient", "App.OtherClient"])
        let report = try Self.validate(Self.valid.map { $0.type == twoOwners.type ? twoOwners : $0 })
        #expect(Self.failed(report) == ["2.7", "2.13"])
        let wrongOwner = ComponentDescriptor(kind: .ownedState, type: "App.CartState", lifetime: .singleton,
                                             owners: ["App.PricingClient"])
        let report2 = try Self.validate(Self.valid.map { $0.type == wrongOwner.type ? wrongOwner : $0 })
        #expect(Self.failed(report2) == ["2.7"])
    }

    @Test("2.8 a cycle in the context graph is reported")
    func cycleReported() throws {
        let graph = try Self.graph([(1, "App.CartContext", true), (2, "App.CartContext", false),
                                    (3, "App.CartContext", false)], [(1, 2), (2, 3), (3, 2)])
        let report = try Self.validate(Self.valid, graph: graph, created: 3)
        #expect(Self.failed(report) == ["2.8"])
        #expect(report.check(.contextComposition)?.violations == ["contexts on a cycle: context-2, context-3"])
    }

    @Test("2.9 contexts not made by the factory are reported")
    func factoryOnly() throws {
        #expect(Self.failed(try Self.validate(Self.valid, factoryViolations: ["token reused"])) == ["2.9"])
        #expect(Self.failed(try Self.validate(Self.valid, created: 1)) == ["2.9"])
        let stranger = try Self.graph([(1, "App.Stranger", true)], [])
        #expect(Self.failed(try Self.validate(Self.valid, graph: stranger, created: 1)).contains("2.9"))
    }

    @Test("2.10 a singleton presentation is reported")
    func presentationLifetime() throws {
        let bad = ComponentDescriptor(kind: .presentation, type: "CartRoutes", dependencies: ["App.CartContext"],
                                      lifetime: .singleton)
        #expect(Self.failed(try Self.validate(Self.valid.map { $0.type == bad.type ? bad : $0 })) == ["2.10"])
    }

    @Test("2.11 a singleton context, or one instance registered twice, is reported")
    func contextLifetime() throws {
        let bad = ComponentDescriptor(kind: .context, type: "App.CartContext",
                                      dependencies: ["App.CartClient"], lifetime: .singleton)
        #expect(Self.failed(try Self.validate(Self.valid.map { $0.type == bad.type ? bad : $0 })) == ["2.11"])
        let reused = try Self.graph([(1, "App.CartContext", true), (2, "App.CartContext", true)], [], distinct: 1)
        #expect(Self.failed(try Self.validate(Self.valid, graph: reused)) == ["2.11"])
    }

    @Test("2.12 a client made twice, or never, is reported")
    func clientLifetime() throws {
        let twice = Self.valid.map { $0.type == "App.PricingClient" ? Self.instantiated(Self.pricing, 2) : $0 }
        #expect(Self.failed(try Self.validate(twice)) == ["2.12"])
        let never = Self.valid.map { $0.type == "App.PricingClient" ? Self.pricing : $0 }
        #expect(Self.failed(try Self.validate(never)) == ["2.12"])
    }

    @Test("2.13 a state whose client has two instances is reported")
    func stateLifetime() throws {
        let twice = Self.valid.map { $0.type == "App.CartClient" ? Self.instantiated(Self.client, 2) : $0 }
        #expect(Self.failed(try Self.validate(twice)) == ["2.12", "2.13"])
        let perUsage = ComponentDescriptor(kind: .ownedState, type: "App.CartState", lifetime: .perUsage,
                                           owners: ["App.CartClient"])
        #expect(Self.failed(try Self.validate(Self.valid.map { $0.type == perUsage.type ? perUsage : $0 })) == ["2.13"])
    }

    @Test("2.14 a capability that is not transient is reported")
    func capabilityLifetime() throws {
        let bad = ComponentDescriptor(kind: .capability, type: "App.Storage", lifetime: .singleton)
        #expect(Self.failed(try Self.validate(Self.valid.map { $0.type == bad.type ? bad : $0 })) == ["2.14"])
    }

    @Test("2.15 two orchestrators are reported")
    func orchestratorLifetime() throws {
        #expect(Self.failed(try Self.validate(Self.valid, orchestrators: 2)) == ["2.15"])
        #expect(Self.failed(try Self.validate(Self.valid.filter { $0.kind != .orchestrator })) == ["2.15"])
    }

    @Test("a failed report refuses with every violation")
    func requirePassed() throws {
        let report = try Self.validate(Self.valid, orchestrators: 2)
        #expect(throws: AxiomError.constraintViolations(report)) { try report.requirePassed() }
        #expect(AxiomError.constraintViolations(report).description.contains("2.15"))
    }
}
