/// How a change set prints: lines for people, one JSON object for programs (what
/// `catalog changes --json` prints and `GET /api/changes` returns).
public enum ChangeText {
    public static func json(_ set: ChangeSet) -> String {
        func indices(_ list: [BatchUpdates.Index]) -> String {
            "[" + list.map { #"{"index":\#($0.index),"id":\#($0.id)}"# }.joined(separator: ",") + "]"
        }
        let updates = "[" + set.updates.updates.map { #"{"index":\#($0.index),"from":\#($0.from),"id":\#($0.id)}"# }.joined(separator: ",") + "]"
        let moves = "[" + set.updates.moves.map { #"{"from":\#($0.from),"to":\#($0.to),"id":\#($0.id)}"# }.joined(separator: ",") + "]"
        return #"{"from":\#(set.from),"to":\#(set.to),"sort":"\#(set.order.rawValue)","reload":\#(set.reload),"#
            + #""deletes":\#(indices(set.updates.deletes)),"inserts":\#(indices(set.updates.inserts)),"#
            + #""moves":\#(moves),"updates":\#(updates)}"#
    }

    public static func lines(_ set: ChangeSet) -> String {
        if set.reload {
            return "reload: the change log does not reach generation \(set.from) (the catalog is at \(set.to)); list the catalog again"
        }
        let u = set.updates
        func counted(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
        var lines = ["generation \(set.from) → \(set.to), \(set.order.rawValue) order: \(counted(u.deletes.count, "delete")), "
            + "\(counted(u.inserts.count, "insert")), \(counted(u.moves.count, "move")), \(counted(u.updates.count, "update"))"]
        lines += u.deletes.map { "delete\t\($0.index)\tid \($0.id)" }
        lines += u.inserts.map { "insert\t\($0.index)\tid \($0.id)" }
        lines += u.moves.map { "move\t\($0.from) → \($0.to)\tid \($0.id)" }
        lines += u.updates.map { "update\t\($0.from) → \($0.index)\tid \($0.id)" }
        return lines.joined(separator: "\n")
    }
}
