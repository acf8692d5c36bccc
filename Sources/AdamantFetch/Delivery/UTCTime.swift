/// `YYYY-MM-DDTHH:MM:SSZ`, the one way the config file writes a moment, as Unix milliseconds
/// and back. UTC only: a mute's end means the same moment wherever the file is read.
public enum UTCTime {
    /// The moment `text` names; nil for anything but that exact shape and a real date.
    public static func unixMillis(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), (1970...9999).contains(year),
            (1...12).contains(month),
            (1...daysIn(month, year)).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        let days = Int64(daysSinceEpoch(year: year, month: month, day: day))
        return ((days * 24 + Int64(hour)) * 60 + Int64(minute)) * 60_000 + Int64(second) * 1000
    }

    /// The same moment written back, to the second.
    public static func text(unixMillis: Int64) -> String {
        let seconds = max(0, unixMillis) / 1000
        var days = Int(seconds / 86_400)
        var rest = Int(seconds % 86_400)
        var year = 1970
        while days >= (isLeap(year) ? 366 : 365) {
            days -= isLeap(year) ? 366 : 365
            year += 1
        }
        var month = 1
        while days >= daysIn(month, year) {
            days -= daysIn(month, year)
            month += 1
        }
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let hour = rest / 3600
        rest %= 3600
        return "\(year)-\(two(month))-\(two(days + 1))T\(two(hour)):\(two(rest / 60)):\(two(rest % 60))Z"
    }

    private static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    private static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        var days = 0
        for y in 1970..<year { days += isLeap(y) ? 366 : 365 }
        for m in 1..<month { days += daysIn(m, year) }
        return days + day - 1
    }
}
