import Foundation

extension Comparable {
    /// How this value orders against `other`, as one of three results (filters and sorts
    /// compare field by field and need "equal" to move on to the next one).
    func order(against other: Self) -> ComparisonResult {
        self < other ? .orderedAscending : self > other ? .orderedDescending : .orderedSame
    }
}
