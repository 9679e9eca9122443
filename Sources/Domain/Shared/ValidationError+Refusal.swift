/// One or more fields are invalid; every failing field is listed in the
/// problem's `errors`.
extension ValidationError: Refusal {
    public var code: String { "validation_failed" }
    public var category: RefusalCategory { .invalid }
    public var message: String {
        "\(Counted.text(errors.count, "field")) failed validation: \(fields.joined(separator: ", "))"
    }
    public var members: [ProblemMember] { [.fieldErrors(name: "errors", errors)] }
}
