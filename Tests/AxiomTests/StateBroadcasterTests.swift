import Axiom
import Testing

@Suite("Observer fan-out")
struct StateBroadcasterTests {
    @Test("a lossless observer a buffer behind ends after what it holds instead of losing an update")
    func losslessObserverEndsWhenBehind() async {
        let broadcaster = StateBroadcaster<Int>(bufferLimit: 3)
        let lossless = broadcaster.subscribeLossless(key: "u")
        let plain = broadcaster.subscribe(key: "u")
        for update in 1...5 { broadcaster.publish(update, key: "u") }
        broadcaster.publish(6, key: "u")
        var held: [Int] = []
        for await update in lossless { held.append(update) }
        // The oldest three, then the end: never 1, 2, 3 followed by 6.
        #expect(held == [1, 2, 3])
        #expect(!broadcaster.isFinished)
        // A plain observer keeps the newest and goes on, as before.
        var iterator = plain.makeAsyncIterator()
        #expect(await iterator.next() == 4)
        broadcaster.finish()
        #expect(broadcaster.isFinished)
    }

    @Test("100 observers each receive every update, in order")
    func hundredObserversInOrder() async {
        let broadcaster = StateBroadcaster<Int>(bufferLimit: 1_000)
        let streams = (0..<100).map { _ in broadcaster.subscribe() }
        #expect(broadcaster.observerCount == 100)
        let received = await withTaskGroup(of: [Int].self) { group in
            for stream in streams {
                group.addTask {
                    var values: [Int] = []
                    for await value in stream { values.append(value) }
                    return values
                }
            }
            for value in 0..<1_000 { broadcaster.publish(value) }
            broadcaster.finish()
            return await group.reduce(into: [[Int]]()) { $0.append($1) }
        }
        #expect(received.count == 100)
        for values in received {
            #expect(values == Array(0..<1_000))
        }
    }

    @Test("a stalled observer delays neither the publisher nor the other observers")
    func stalledObserver() async {
        let limit = 8
        let broadcaster = StateBroadcaster<Int>(bufferLimit: limit)
        // The stalled observer reads nothing until the gate opens.
        let stalled = broadcaster.subscribe()
        let gate = AsyncStream<Void>.makeStream()
        let stalledReader = Task {
            for await _ in gate.stream { break }
            var values: [Int] = []
            for await value in stalled { values.append(value) }
            return values
        }
        // Live observers with room for everything, consuming as it comes.
        let live = (0..<10).map { _ in broadcaster.subscribe(bufferLimit: 1_000) }
        let liveReaders = live.map { stream in
            Task {
                var values: [Int] = []
                for await value in stream { values.append(value) }
                return values
            }
        }
        // The publisher runs to completion while the stalled observer has
        // read nothing: publish never waits for an observer.
        for value in 0..<500 { broadcaster.publish(value) }
        broadcaster.finish()
        // Every live observer has everything, before the stalled one reads.
        for reader in liveReaders {
            #expect(await reader.value == Array(0..<500))
        }
        gate.continuation.yield()
        // The stalled observer kept only the newest `limit` updates.
        #expect(await stalledReader.value == Array((500 - limit)..<500))
    }

    @Test("cancelled observers are removed; the live count returns to 0")
    func cancelledObserversAreCleaned() async {
        let broadcaster = StateBroadcaster<Int>()
        let started = AsyncStream<Void>.makeStream()
        let readers = (0..<50).map { _ in
            let stream = broadcaster.subscribe()
            return Task {
                started.continuation.yield()
                for await _ in stream {}
            }
        }
        #expect(broadcaster.observerCount == 50)
        var count = 0
        for await _ in started.stream {
            count += 1
            if count == 50 { break }
        }
        for reader in readers { reader.cancel() }
        for reader in readers { await reader.value }
        #expect(broadcaster.observerCount == 0)
        // A stream dropped without ever being iterated is removed as well.
        do {
            let unused = broadcaster.subscribe()
            #expect(broadcaster.observerCount == 1)
            _ = unused
        }
        await eventually { broadcaster.observerCount == 0 }
        #expect(broadcaster.observerCount == 0)
    }

    @Test("a keyed observer gets only its key's updates; an observer of everything gets all")
    func keyedObservers() async {
        let broadcaster = StateBroadcaster<String>()
        let alice = broadcaster.subscribe(key: "alice")
        let alsoAlice = broadcaster.subscribe(key: "alice")
        let bob = broadcaster.subscribe(key: "bob")
        let everything = broadcaster.subscribe()
        #expect(broadcaster.observerCount == 4)
        #expect(broadcaster.observerCount(key: "alice") == 2)
        broadcaster.publish("a1", key: "alice")
        broadcaster.publish("b1", key: "bob")
        broadcaster.publish("c1", key: "carol")  // nobody observes carol alone
        broadcaster.publish("unkeyed")           // observers of everything only
        broadcaster.publish("a2", key: "alice")
        broadcaster.finish()
        func all(_ stream: AsyncStream<String>) async -> [String] {
            var values: [String] = []
            for await value in stream { values.append(value) }
            return values
        }
        #expect(await all(alice) == ["a1", "a2"])
        #expect(await all(alsoAlice) == ["a1", "a2"])
        #expect(await all(bob) == ["b1"])
        #expect(await all(everything) == ["a1", "b1", "c1", "unkeyed", "a2"])
        #expect(broadcaster.observerCount == 0)
        var late: [String] = []
        for await value in broadcaster.subscribe(key: "alice") { late.append(value) }
        #expect(late.isEmpty)
    }

    @Test("a keyed observer that goes away is removed from its key")
    func keyedObserversAreCleaned() async {
        let broadcaster = StateBroadcaster<Int>()
        let kept = broadcaster.subscribe(key: 7)
        do {
            let dropped = broadcaster.subscribe(key: 7)
            let other = broadcaster.subscribe(key: 8)
            #expect(broadcaster.observerCount == 3)
            _ = (dropped, other)
        }
        await eventually { broadcaster.observerCount == 1 }
        #expect(broadcaster.observerCount(key: 7) == 1)
        #expect(broadcaster.observerCount(key: 8) == 0)
        broadcaster.publish(1, key: 7)
        broadcaster.finish()
        var values: [Int] = []
        for await value in kept { values.append(value) }
        #expect(values == [1])
    }

    @Test("finish ends every stream and later subscriptions end at once")
    func finishEndsStreams() async {
        let broadcaster = StateBroadcaster<Int>()
        let stream = broadcaster.subscribe()
        broadcaster.publish(1)
        broadcaster.finish()
        var values: [Int] = []
        for await value in stream { values.append(value) }
        #expect(values == [1])
        var late: [Int] = []
        for await value in broadcaster.subscribe() { late.append(value) }
        #expect(late.isEmpty)
        #expect(broadcaster.observerCount == 0)
    }
}
