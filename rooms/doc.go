// Package rooms lets a class follow one session's demo: a teacher's
// session owns a room (a short code, and an owner secret only the
// teacher's page holds); followers on any replica see its demo live.
//
// One type fans a room's frames out (room, in room.go): they come in per
// language, numbered, from the owner's session on this replica (a Lease's
// Publish) or over NATS from the owner's replica, and go out to the
// followers' mailboxes. Followers here take the same path whoever owns the
// room: a feed per language joins the owner (asks it, through the Owner
// interface or over the bus, for the whole demo with the seq of its last
// frame), then applies the frames that follow in order.
//
// Guarantees:
//   - Every gap is repaired before more is shown: a feed that sees a seq
//     gap, a frame or announce of a newer owner, a NATS reconnect or a
//     slow consumer joins again, and applies nothing until the whole demo
//     has come.
//   - The owner is heard: its replica announces each room every Announce;
//     a replica that hears nothing for three periods, while its own NATS
//     connection is up, judges the owner gone. Followers then wait Grace
//     for it to come back (a code not known at all waits the same), and are
//     told the room ended after that: within 3·Announce + Grace (+ one
//     Retry step) of the owner's death, 46 s by default.
//   - Only the owner secret claims a code: a claim is checked, in
//     constant time, against the seal (the SHA-256) of the secret known of
//     the room here or heard on the bus. A granted claim starts a new
//     tenure (term+1, a new epoch); the owner of an older tenure, here or
//     on another replica, hands over when it hears of it and its followers
//     join the new owner. A code known nowhere (a lone process restarted)
//     goes to its first claim; where a room is known, an owner of another
//     seal (announced, or answering a join) is ignored, and frames never
//     move a room to a new owner: only a checked announce or join does.
//   - Nothing waits on a session or a socket: Run owns every room and
//     talks to owners through Owner (whose methods return at once) and to
//     sockets through their mailboxes; round trips on the bus run on
//     goroutines of their own and answer with a message. So a session may
//     publish to the rooms without a circle of waits.
//   - Followers never learn the owner's session id; the owner secret
//     stays between the owner's page and the replica it talks to (other
//     replicas hear only its seal), and is never logged.
//
// Imports: sockets and nats.go, never the server and never a demo.
package rooms
