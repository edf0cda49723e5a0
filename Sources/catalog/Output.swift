/// What the command line says of its output beyond the output itself.
enum Output {
    /// What a command wrote to the catalog before its summary, said when the summary cannot be
    /// written (`finishOutput`): a script that sees the exit status 1 must not take the import
    /// for undone.
    nonisolated(unsafe) static var written: String?
}
