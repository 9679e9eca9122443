extension Currency {
    /// Digits after the decimal point in this currency's minor unit (ISO
    /// 4217's exponent): amounts are stored in minor units, so 5997 is
    /// 59.97 USD but 5997 JPY. Two for any code not listed.
    public var minorUnitDigits: Int {
        if Self.noMinorUnit.contains(code) { return 0 }
        if Self.thousandths.contains(code) { return 3 }
        return 2
    }

    private static let noMinorUnit: Set<String> = [
        "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF",
        "XPF",
    ]
    private static let thousandths: Set<String> = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]
}
