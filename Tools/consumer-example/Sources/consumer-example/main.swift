// Computes the distance from Stockholm Central to Gothenburg Central with MissionProximity.
import MissionProximity

let stockholm = try Coordinate(latitude: 59.3300, longitude: 18.0590)
let gothenburg = try Coordinate(latitude: 57.7089, longitude: 11.9730)
let meters = stockholm.distance(to: gothenburg)
print("Stockholm C → Göteborg C: \(Int(meters.rounded())) m")
