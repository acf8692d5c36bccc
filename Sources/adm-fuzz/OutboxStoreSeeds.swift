/// outbox-store's seeds, fitted to the baseline files of this build: each file as written,
/// the SQLite header's fields changed one by one, each page's b-tree header changed, and cuts
/// at and between pages.
extension OutboxStoreFuzz {
    static func seeds() -> [Seed] {
        var seeds: [Seed] = []
        for (selector, name, file) in [
            (UInt8(0), "outbox", StoreBaseline.shared.outbox), (1, "log", StoreBaseline.shared.log),
        ] {
            func seed(_ what: String, cut: Int = 0, _ patches: [(offset: Int, mask: UInt8)]) {
                let bytes =
                    [selector, UInt8(cut >> 8), UInt8(cut & 0xFF)]
                    + patches.flatMap { [UInt8($0.offset >> 8), UInt8($0.offset & 0xFF), $0.mask] }
                seeds.append(Seed(name: "\(name) \(what)", bytes: bytes))
            }
            seed("as written", [])
            let header: [(String, Int, UInt8)] = [
                ("magic", 0, 0x20), ("page size", 16, 0x01), ("page size halved", 17, 0x08),
                ("write version", 18, 0x03),
                ("read version", 19, 0x01), ("reserved space", 20, 0x08), ("payload fraction", 21, 0x01),
                ("change counter", 27, 0x01),
                ("page count", 31, 0x01), ("page count huge", 28, 0x7F), ("freelist trunk", 35, 0x01),
                ("freelist count", 39, 0x01),
                ("schema cookie", 43, 0x01), ("schema format", 47, 0x07), ("text encoding", 59, 0x03),
                ("user version bit 1", 63, 0x02),
                ("user version bit 0", 63, 0x01), ("user version negative", 60, 0x80), ("incremental vacuum", 67, 0x01),
                ("valid for", 95, 0x01),
            ]
            for (what, offset, mask) in header { seed("header \(what)", [(offset, mask)]) }
            let pageSize = Int(file[16]) << 8 | Int(file[17])
            let pages = file.count / pageSize
            for page in 0..<pages {
                let start = page * pageSize
                let btree = start + (page == 0 ? 100 : 0)
                seed("page \(page + 1) type", [(btree, 0x01)])
                seed("page \(page + 1) cell count", [(btree + 4, 0x01)])
                seed("page \(page + 1) first cell", [(btree + 9, 0x04)])
                seed("page \(page + 1) content", [(start + pageSize - 40, 0x10)])
            }
            for cut in [100, pageSize, 2 * pageSize + 1000, file.count - pageSize, file.count - 1] {
                seed("cut to \(cut)", cut: cut, [])
            }
        }
        return seeds
    }
}
