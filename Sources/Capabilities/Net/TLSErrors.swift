import CSSL

/// OpenSSL's per-thread error queue, read out as one line.
enum TLSErrors {
    /// Every queued error's text, oldest first, and the queue emptied.
    static func drain() -> String {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            guard code != 0 else { break }
            var text = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &text, text.count)
            reasons.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return reasons.isEmpty ? "unknown error" : reasons.joined(separator: "; ")
    }
}
