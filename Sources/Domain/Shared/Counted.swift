/// `1 second`, `2 seconds`: a count and its noun in messages, so a message
/// never says "1 seconds" (English plurals by adding "s" unless given).
public enum Counted {
    public static func text(_ count: Int, _ singular: String, plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? singular : plural ?? singular + "s")
    }
}
