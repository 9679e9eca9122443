/// The job works this process runs, in the order the composition root
/// lists them.
public struct JobWorks: Sendable {
    let types: [any JobWork.Type]

    public init(_ types: [any JobWork.Type]) {
        self.types = types
    }
}
