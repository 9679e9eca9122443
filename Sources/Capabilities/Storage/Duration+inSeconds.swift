extension Duration {
    /// The duration in seconds as a `Double`, the unit of the storage
    /// latency histograms (`StorageMetrics.commitLatency`, `batchLatency`).
    var inSeconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
