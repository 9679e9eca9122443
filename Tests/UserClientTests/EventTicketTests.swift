import AxiomTestSupport
import Domain
import Foundation
import Testing
@testable import UserClient

/// Event-stream tickets in the users client, on the run's clock (moved,
/// never slept through), with the real SQLite sessions behind them.
@Suite struct EventTicketTests {
    static let password = "correct horse battery"

    private func signedIn(_ run: UserRun, _ email: String) async throws -> AuthenticatedSession {
        _ = try await run.client.register(NewUserRequest(name: "Kim", email: email, password: Self.password))
        return try await run.client.login(email: email, password: Self.password, clientAddress: "a")
    }

    @Test func aTicketOpensItsOwnSessionOnceAndIsGoneAfterward() async throws {
        let directory = try TempDirectory()
        let run = try await UserRun.start(directory)
        let session = try await signedIn(run, "kim@example.com")
        let other = try await run.client.login(email: "kim@example.com", password: Self.password, clientAddress: "b")
        let ticket = try await run.client.issueEventTicket(token: session.token)
        #expect(ticket.ticket != session.token && ticket.ticket.count >= 43)
        #expect(ticket.expiresAt.millisecondsSince1970 == run.clock.wallClockNow().components.seconds * 1000 + 30_000)

        let caller = try await run.client.redeemEventTicket(ticket.ticket)
        #expect(caller.sessionID == session.sessionID && caller.sessionID != other.sessionID)
        await #expect(throws: AuthenticationError.invalidTicket) { _ = try await run.client.redeemEventTicket(ticket.ticket) }
        await #expect(throws: AuthenticationError.invalidTicket) { _ = try await run.client.redeemEventTicket("made-up") }
        // A token is not a ticket, nor a ticket a token.
        await #expect(throws: AuthenticationError.invalidTicket) { _ = try await run.client.redeemEventTicket(session.token) }
        let second = try await run.client.issueEventTicket(token: session.token)
        await #expect(throws: AuthenticationError.invalidToken) { _ = try await run.client.authenticate(token: second.ticket) }
        #expect(try await run.client.heldEventTickets() == 1)
        await run.stop()
    }

    @Test func aTicketExpiresThirtySecondsAfterItWasMinted() async throws {
        let directory = try TempDirectory()
        let run = try await UserRun.start(directory)
        let session = try await signedIn(run, "kim@example.com")
        let early = try await run.client.issueEventTicket(token: session.token)
        let late = try await run.client.issueEventTicket(token: session.token)
        run.clock.advance(by: .milliseconds(29_999))
        #expect(try await run.client.redeemEventTicket(early.ticket).sessionID == session.sessionID)
        run.clock.advance(by: .milliseconds(1))
        await #expect(throws: AuthenticationError.invalidTicket) { _ = try await run.client.redeemEventTicket(late.ticket) }
        // The session itself is still good: only the ticket aged out.
        #expect(try await run.client.authenticate(token: session.token).sessionID == session.sessionID)
        await run.stop()
    }

    @Test func signingOutVoidsTheSessionsTicketsAndADeadSessionMintsNone() async throws {
        let directory = try TempDirectory()
        let run = try await UserRun.start(directory)
        let session = try await signedIn(run, "kim@example.com")
        let ticket = try await run.client.issueEventTicket(token: session.token)
        _ = try await run.client.logout(sessionID: session.sessionID)
        await #expect(throws: AuthenticationError.invalidTicket) { _ = try await run.client.redeemEventTicket(ticket.ticket) }
        await #expect(throws: AuthenticationError.invalidToken) { _ = try await run.client.issueEventTicket(token: session.token) }
        #expect(try await run.client.heldEventTickets() == 0)
        await run.stop()
    }

    @Test func aSessionHoldsAtMostFourUnusedTicketsItsOldestGoingFirst() async throws {
        let directory = try TempDirectory()
        let run = try await UserRun.start(directory)
        let session = try await signedIn(run, "kim@example.com")
        var tickets: [EventTicket] = []
        for _ in 0..<5 {
            tickets.append(try await run.client.issueEventTicket(token: session.token))
            // Distinct expiries, so "oldest" is well defined.
            run.clock.advance(by: .milliseconds(10))
        }
        #expect(try await run.client.heldEventTickets() == 4)
        await #expect(throws: AuthenticationError.invalidTicket) { _ = try await run.client.redeemEventTicket(tickets[0].ticket) }
        for ticket in tickets.dropFirst() {
            #expect(try await run.client.redeemEventTicket(ticket.ticket).sessionID == session.sessionID)
        }
        await run.stop()
    }
}
