extension StringProtocol {
    /// Drops leading and trailing SP and HTAB (OWS in RFC 9110).
    func trimmingWhitespace() -> Substring {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return slice
    }
}
