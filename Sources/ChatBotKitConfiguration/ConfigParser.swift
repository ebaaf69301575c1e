import ChatBotKit
import Foundation
import Yams

/// Turns YAML text into ``ConfigNode``s, substituting `${VAR}` and `${VAR:-default}` from the
/// environment in every scalar.
struct ConfigParser {
    let file: String
    let environment: [String: String]

    func parse(_ text: String) throws(ConfigurationError) -> ConfigNode {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw ConfigParser.syntaxError(error, file: file)
        } catch {
            throw ConfigurationError(code: .syntax, message: "\(error)", file: file, line: 0, column: 0)
        }
        guard let root else {
            throw ConfigurationError(code: .missingKey, message: "the file is empty; it needs at least a bots: list", file: file, line: 1, column: 1)
        }
        return try convert(root, path: "bots.yaml", keyMark: nil)
    }

    private func convert(_ node: Node, path: String, keyMark: (line: Int, column: Int)?) throws(ConfigurationError) -> ConfigNode {
        let mark = node.mark
        let line = mark?.line ?? 0
        let column = mark?.column ?? 0
        switch node {
        case .scalar(let scalar):
            let substituted = try substitute(scalar.string, line: line, column: column)
            return ConfigNode(
                value: .scalar(substituted, isPlain: scalar.style == .plain), file: file, line: line, column: column, path: path, keyMark: keyMark)
        case .mapping(let mapping):
            var pairs: [(key: ConfigNode, value: ConfigNode)] = []
            for (key, value) in mapping {
                let keyNode = try convert(key, path: path, keyMark: nil)
                let name = (try? keyNode.string()) ?? "?"
                let valueNode = try convert(value, path: path == "bots.yaml" ? name : "\(path).\(name)", keyMark: (keyNode.line, keyNode.column))
                pairs.append((keyNode, valueNode))
            }
            return ConfigNode(value: .mapping(pairs), file: file, line: line, column: column, path: path, keyMark: keyMark)
        case .sequence(let sequence):
            var nodes: [ConfigNode] = []
            for (index, element) in sequence.enumerated() { nodes.append(try convert(element, path: "\(path)[\(index)]", keyMark: nil)) }
            return ConfigNode(value: .sequence(nodes), file: file, line: line, column: column, path: path, keyMark: keyMark)
        case .alias:
            throw ConfigurationError(code: .syntax, message: "YAML aliases are not supported in \(path)", file: file, line: line, column: column)
        }
    }

    /// `${NAME}` and `${NAME:-default}`; an unset `${NAME}` without a default is an error.
    func substitute(_ text: String, line: Int, column: Int) throws(ConfigurationError) -> String {
        guard text.contains("${") else { return text }
        var result = ""
        var rest = Substring(text)
        while let start = rest.range(of: "${") {
            result += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
                throw ConfigurationError(code: .badValue, message: "\"${\" without a closing \"}\" in \"\(text)\"", file: file, line: line, column: column)
            }
            let expression = rest[start.upperBound..<end]
            let name: Substring
            let fallback: Substring?
            if let separator = expression.range(of: ":-") {
                name = expression[..<separator.lowerBound]
                fallback = expression[separator.upperBound...]
            } else {
                name = expression
                fallback = nil
            }
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw ConfigurationError(code: .badValue, message: "\"${\(expression)}\" is not a variable reference", file: file, line: line, column: column)
            }
            if let value = environment[String(name)], !value.isEmpty {
                result += value
            } else if let fallback {
                result += fallback
            } else {
                throw ConfigurationError(
                    code: .missingVariable,
                    message: "environment variable \(name) is not set; set it or write ${\(name):-default}", file: file, line: line,
                    column: column)
            }
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }

    static func syntaxError(_ error: YamlError, file: String) -> ConfigurationError {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _), .composer(_, let problem, let mark, _):
            return ConfigurationError(code: .syntax, message: "invalid YAML: \(problem)", file: file, line: mark.line, column: mark.column)
        default:
            return ConfigurationError(code: .syntax, message: "invalid YAML: \(error)", file: file, line: 0, column: 0)
        }
    }
}
