import ArgumentParser
import Foundation

/// Refuses an option that takes a value and is given twice: ArgumentParser keeps the
/// last value without a word, so `--db a.db --db b.db` wrote b.db, and
/// `--on-error skip ... --on-error abort` said that --on-error skip was missing.
enum RepeatedOptions {
    /// Options each of whose values adds one item (`--type a=INT --type b=TEXT`).
    static let repeatable: Set<String> = ["--enum", "--group", "--type", "--param"]

    /// - Parameters:
    ///   - command: the subcommand, whose help lists the options that take a value
    ///     (`--name <value>`): read from it, so that no option is forgotten.
    ///   - arguments: the command line, `CommandLine.arguments` by default.
    static func refuse(in command: ParsableCommand.Type, arguments: [String] = CommandLine.arguments) throws {
        // Most command lines repeat no option: the help text (which ArgumentParser builds
        // by reflection, a megabyte of peak memory) is only made when one might.
        let names = arguments.dropFirst().prefix { $0 != "--" }.filter { $0.hasPrefix("-") && $0.count > 1 }.map { String($0.split(separator: "=", maxSplits: 1)[0]) }
        guard Set(names).count < names.count || names.contains(where: { !$0.hasPrefix("--") }) else { return }
        let help = SQLImportCommand.helpMessage(for: command, columns: 10_000)
        let takesValue = Set(help.matches(of: /(--[a-z0-9-]+) </).map { String($0.output.1) })
        // `-o, --output <path>`: a short name counts as its long one.
        let longName = Dictionary(help.matches(of: /(-[a-zA-Z]), (--[a-z0-9-]+)/).map { (String($0.output.1), String($0.output.2)) }) { first, _ in first }
        var values: [String: [String]] = [:]
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" { break }
            guard argument.hasPrefix("-"), argument.count > 1 else { continue }
            let parts = argument.split(separator: "=", maxSplits: 1)
            let name = longName[String(parts[0])] ?? String(parts[0])
            guard takesValue.contains(name), !repeatable.contains(name) else { continue }
            if parts.count == 2 {
                values[name, default: []].append(String(parts[1]))
            } else if index < arguments.count {
                values[name, default: []].append(arguments[index])
                index += 1
            }
        }
        if let (name, given) = values.filter({ $0.value.count > 1 }).min(by: { $0.key < $1.key }) {
            throw ValidationError("\(name) is given \(given.count) times (\(given.joined(separator: ", "))), and only one is used; give it once")
        }
    }
}
