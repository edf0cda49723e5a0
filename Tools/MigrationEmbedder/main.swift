// MigrationEmbedder [--enum NAME] OUTPUT.swift FILE.sql...: writes the migrations as a Swift array
// literal, `NAME.all` (EmbeddedMigrations by default).
// MigrationEmbedder --assets FOLDER OUTPUT.swift FILE...: writes the text files (paths relative
// to FOLDER) as a dictionary of string literals.
import Foundation

var arguments = Array(CommandLine.arguments.dropFirst())
let assets = arguments.first == "--assets"
if assets { arguments.removeFirst() }
let folder = assets && !arguments.isEmpty ? arguments.removeFirst() : ""
var enumName = "EmbeddedMigrations"
if !assets, arguments.first == "--enum", arguments.count > 1 {
    arguments.removeFirst()
    enumName = arguments.removeFirst()
}
guard let output = arguments.first else {
    FileHandle.standardError.write(Data("usage: MigrationEmbedder [--assets FOLDER | --enum NAME] OUTPUT.swift FILE...\n".utf8))
    exit(2)
}

func literal(_ text: String) -> String {
    "\"" + text.unicodeScalars.map { scalar -> String in
        switch scalar {
        case "\\": "\\\\"
        case "\"": "\\\""
        case "\n": "\\n"
        case "\r": "\\r"
        case "\t": "\\t"
        default: scalar.value < 0x20 ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }
    }.joined() + "\""
}

var source: String
if assets {
    source = "// Generated from Assets/ by the EmbedAssets plugin. Do not edit.\n"
    source += "enum EmbeddedAssets {\n    static let files: [String: String] = [\n"
    for path in arguments.dropFirst() {
        let name = String(path.dropFirst(folder.count).drop { $0 == "/" })
        guard let text = try? String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8) else {
            FileHandle.standardError.write(Data("\(path): assets are UTF-8 text\n".utf8))
            exit(1)
        }
        source += "        \(literal(name)): \(literal(text)),\n"
    }
    source += "    ]\n}\n"
} else {
    source = "// Generated from Migrations/*.sql by the EmbedMigrations plugin. Do not edit.\n"
    source += "enum \(enumName) {\n    static let all: [(id: String, sql: String)] = [\n"
    for path in arguments.dropFirst() {
        let url = URL(fileURLWithPath: path)
        let id = url.deletingPathExtension().lastPathComponent
        guard id.range(of: #"^[0-9]{4}_[a-z0-9_]+$"#, options: .regularExpression) != nil else {
            FileHandle.standardError.write(Data("\(path): migration files are named NNNN_description.sql\n".utf8))
            exit(1)
        }
        source += "        (id: \"\(id)\", sql: \(literal(try String(contentsOf: url, encoding: .utf8)))),\n"
    }
    source += "    ]\n}\n"
}
try source.write(to: URL(fileURLWithPath: output), atomically: true, encoding: .utf8)
