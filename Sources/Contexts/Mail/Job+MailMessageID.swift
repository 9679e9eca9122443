import Domain

extension Job {
    /// The left part of the `Message-ID` of the mail this job sends
    /// (`job-42.order-mail`): the same on every attempt, so a mail sent
    /// again after a lost reply is recognisable as the same message.
    var mailMessageID: String {
        "job-\(id).\(kind.split(separator: ".").joined(separator: "-"))"
    }
}
