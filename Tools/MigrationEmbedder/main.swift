// MigrationEmbedder OUTPUT.swift FILE.sql...: writes the migrations as a Swift array literal.
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first else {
    FileHandle.standardError.write(Data("usage: MigrationEmbedder OUTPUT.swift FILE.sql...\n".utf8))
    exit(2)
}
var source = "// Generated from Migrations/*.sql by the EmbedMigrations plugin. Do not edit.\n"
source += "enum EmbeddedMigrations {\n    static let all: [(id: String, sql: String)] = [\n"
for path in arguments.dropFirst() {
    let url = URL(fileURLWithPath: path)
    let id = url.deletingPathExtension().lastPathComponent
    guard id.range(of: #"^[0-9]{4}_[a-z0-9_]+$"#, options: .regularExpression) != nil else {
        FileHandle.standardError.write(Data("\(path): migration files are named NNNN_description.sql\n".utf8))
        exit(1)
    }
    let sql = try String(contentsOf: url, encoding: .utf8)
    let literal = "\"" + sql.unicodeScalars.map { scalar -> String in
        switch scalar {
        case "\\": "\\\\"
        case "\"": "\\\""
        case "\n": "\\n"
        case "\r": "\\r"
        case "\t": "\\t"
        default: scalar.value < 0x20 ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }
    }.joined() + "\""
    source += "        (id: \"\(id)\", sql: \(literal)),\n"
}
source += "    ]\n}\n"
try source.write(to: URL(fileURLWithPath: output), atomically: true, encoding: .utf8)
