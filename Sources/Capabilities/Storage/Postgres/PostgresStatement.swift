/// One statement waiting to go to the server in a pipeline: SQL already in
/// `$n` form, with its values.
struct PostgresStatement {
    let sql: String
    let arguments: [StorageValue]

    init(_ sql: String, _ arguments: [StorageValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }
}
