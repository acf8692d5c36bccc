/// What a watch reads on its own and resumes on its own, each with its cursor and the page it
/// is handing over: the listing of chats, the listing of transfers (nodes before 0.10 list
/// them apart), and what the nodes' sockets and pools announce before a block holds it.
public enum WatchStream: String, Sendable, Hashable, CaseIterable {
    /// The chat transactions to the account, by block.
    case chats
    /// The ADM transfers to the account, by block.
    case transfers
    /// What the sockets and pools announce; it has a page and no cursor.
    case socket
}
