package pipeline

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
)

// states are demos worth a snapshot, each built by a short script of whole
// milliseconds (so that a restored demo, whose clock is kept in
// milliseconds, goes on exactly alike).
func states(t *testing.T) map[string]func() *Demo {
	t.Helper()
	run := func(cmds []demo.Command, steps ...time.Duration) func() *Demo {
		return func() *Demo {
			d := NewDemo()
			for i, c := range cmds {
				mustApply(t, d, c)
				if i < len(steps) {
					d.Advance(steps[i])
				}
			}
			return d
		}
	}
	ms := time.Millisecond
	return map[string]func() *Demo{
		"fresh":          NewDemo,
		"edit in flight": run([]demo.Command{{Action: "edit", Name: "app-1"}}, 150*ms),
		"reconcile mid-way": run([]demo.Command{{Action: "create", Name: "app-2"}, {Action: "edit", Name: "app-1"}},
			0, 550*ms),
		"runaway, two workers, 2×": run([]demo.Command{{Action: "workers", N: 2}, {Action: "trap", Name: "runaway", On: true},
			{Action: "create", Name: "app-2"}, {Action: "create", Name: "app-3"}, {Action: "speed", Speed: sim.Double}},
			0, 0, 0, 0, 7777*ms),
		"backoff": run([]demo.Command{{Action: "dependency", On: false}, {Action: "not-ready", Name: "error"}}, 0, 4321*ms),
		"hung call": run([]demo.Command{{Action: "trap", Name: "slow-object", On: true}, {Action: "create", Name: "app-2"}},
			0, 1500*ms),
		"stuck, paused": run([]demo.Command{{Action: "trap", Name: "stuck-finalizer", On: true},
			{Action: "delete", Name: "app-1"}, {Action: "pause", On: true}}),
		"orphan, 0.5×": run([]demo.Command{{Action: "controller", On: false}, {Action: "delete", Name: "app-1"},
			{Action: "remove-finalizer", Name: "app-1"}, {Action: "speed", Speed: sim.Half}, {Action: "controller", On: true}},
			0, 0, 0, 0, 1000*ms), // at 0.5×, an even count of ms: no fraction the snapshot would drop
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	for name, mk := range states(t) {
		t.Run(name, func(t *testing.T) {
			d := mk()
			raw := demo.MustJSON(d.Snapshot())
			in, err := Kind.Restore(demo.Options{}, json.RawMessage(raw))
			if err != nil {
				t.Fatalf("restore: %v\n%s", err, raw)
			}
			r := in.(*Demo)
			if got := demo.MustJSON(r.Snapshot()); got != raw {
				t.Fatalf("round trip:\n got %s\nwant %s", got, raw)
			}
			if r.Now() != r.World().Now() || r.Paused() != d.Paused() || r.Speed() != d.Speed() {
				t.Fatal("the restored clock differs")
			}
			ev := r.World().Events()
			if len(ev) != 1 || ev[0].Kind != "restored" {
				t.Fatalf("restored demo's log %+v", ev)
			}
			sameFuture(t, d, r, 7)
		})
	}
}

// sameFuture drives a and b with the same random commands and time steps
// and fails when their snapshots ever differ.
func sameFuture(t *testing.T, a, b *Demo, seed int64) {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	names := []string{"app-1", "app-2", "app-3"}
	for i := 0; i < 200; i++ {
		var c demo.Command
		switch rng.Intn(8) {
		case 0:
			c = demo.Command{Action: "create", Name: names[rng.Intn(3)]}
		case 1:
			c = demo.Command{Action: "edit", Name: names[rng.Intn(3)]}
		case 2:
			c = demo.Command{Action: "delete", Name: names[rng.Intn(3)]}
		case 3:
			c = demo.Command{Action: "step"}
		case 4:
			c = demo.Command{Action: "predicate", On: rng.Intn(2) == 0}
		case 5:
			c = demo.Command{Action: "dependency", On: rng.Intn(3) > 0}
		default:
			dt := time.Duration(rng.Intn(3000)) * time.Millisecond
			a.Advance(dt)
			b.Advance(dt)
		}
		if c.Action != "" {
			ea, eb := a.Apply(c), b.Apply(c)
			if (ea == nil) != (eb == nil) {
				t.Fatalf("op %d %+v: %v vs %v", i, c, ea, eb)
			}
		}
		if sa, sb := demo.MustJSON(a.Snapshot()), demo.MustJSON(b.Snapshot()); sa != sb {
			t.Fatalf("op %d %+v: the restored demo went on differently:\n%s\n%s", i, c, sa, sb)
		}
	}
}

// TestSnapshotIsSmall: the page sends its snapshot back in one message
// (8 KB at most with the action around it); these states stay under 6 KB.
// The fuzzer holds the worst case under MaxSnapshotBytes.
func TestSnapshotIsSmall(t *testing.T) {
	for name, mk := range states(t) {
		n := len(demo.MustJSON(mk().Snapshot()))
		if n > 6<<10 {
			t.Errorf("%s: snapshot of %d bytes", name, n)
		}
		t.Logf("%-26s %5d bytes", name, n)
	}
}

// TestRestoreRefusesForgedSnapshots: anything this package could not have
// written is refused, without a panic.
func TestRestoreRefusesForgedSnapshots(t *testing.T) {
	good := demo.MustJSON(states(t)["reconcile mid-way"]().Snapshot())
	forge := func(from, to string) string {
		if !strings.Contains(good, from) {
			t.Fatalf("the snapshot has no %q:\n%s", from, good)
		}
		return strings.Replace(good, from, to, 1)
	}
	cases := map[string]string{
		"not JSON":          `{"v":1,`,
		"empty":             `{}`,
		"trailing data":     good + `{}`,
		"unknown field":     strings.Replace(good, `{"v":1,`, `{"v":1,"extra":1,`, 1),
		"unknown nested":    forge(`"settings":{`, `"settings":{"extra":true,`),
		"another version":   strings.Replace(good, `{"v":1,`, `{"v":2,`, 1),
		"another kind":      forge(`"kind":"pipeline"`, `"kind":"reconcile"`),
		"clocks differ":     forge(`"paused":`, `"now":1,"paused":`),
		"a bad speed":       forge(`"speed":"1"`, `"speed":"3"`),
		"no world":          forge(`"world":{`, `"nope":{`),
		"world version":     forge(`"world":{"v":1`, `"world":{"v":7`),
		"three workers":     forge(`"workers":1`, `"workers":3`),
		"an unknown option": forge(`"statusWrite":"on-change"`, `"statusWrite":"sometimes"`),
		"a fourth App":      forge(`"name":"app-2"`, `"name":"app-4"`),
		"a huge counter":    forge(`"success":`, `"success":9007199254740993,"x":`),
		"a negative clock":  forge(`"world":{"v":1,"now":`, `"world":{"v":1,"now":-`),
	}
	for name, raw := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := Kind.Restore(demo.Options{}, json.RawMessage(raw)); err == nil {
				t.Fatalf("accepted:\n%s", raw)
			}
		})
	}
	if _, err := Kind.Restore(demo.Options{}, json.RawMessage(good)); err != nil {
		t.Fatalf("the good snapshot was refused: %v", err)
	}
}

// busy returns the largest world the demo makes: three Apps on two
// workers in a runaway loop, writing status from the cache, with sixteen
// watch events on their way (the API server refuses the next write).
func busy(t *testing.T) *Demo {
	t.Helper()
	d := NewDemo()
	mustApply(t, d, demo.Command{Action: "workers", N: 2})
	mustApply(t, d, demo.Command{Action: "create", Name: "app-2"})
	mustApply(t, d, demo.Command{Action: "create", Name: "app-3"})
	mustApply(t, d, demo.Command{Action: "trap", Name: "runaway", On: true})
	mustApply(t, d, demo.Command{Action: "status-from", Name: "cache"})
	d.Advance(5301 * time.Millisecond)
	for i := 0; d.Apply(demo.Command{Action: "edit", Name: []string{"app-1", "app-2", "app-3"}[i%3]}) == nil; i++ {
	}
	return d
}

// TestBusyWorldIsPacked: a world whose plain snapshot would not fit one
// message is packed, fits, and restores exactly.
func TestBusyWorldIsPacked(t *testing.T) {
	d := busy(t)
	plain := len(demo.MustJSON(d.World().Snapshot()))
	s := d.Snapshot()
	raw := demo.MustJSON(s)
	if plain <= MaxPlainBytes || s.World != nil || s.Packed == "" {
		t.Fatalf("a world of %d bytes was not packed", plain)
	}
	if len(raw) > MaxPlainBytes/2 {
		t.Fatalf("packed snapshot of %d bytes (plain world %d)", len(raw), plain)
	}
	t.Logf("plain world %d bytes, packed snapshot %d bytes", plain, len(raw))
	var written bytes.Buffer
	if err := d.WriteSnapshotJSON(&written); err != nil || written.String() != raw {
		t.Fatalf("a frame writes the packed snapshot as (%v)\n%s\nnot\n%s", err, written.String(), raw)
	}
	r := restored(t, d)
	sameFuture(t, d, r, 3)
}

// TestRestoreRefusesForgedPackedWorlds: a packed world must be exactly what
// this demo packs.
func TestRestoreRefusesForgedPackedWorlds(t *testing.T) {
	good := busy(t).Snapshot()
	small := NewDemo().Snapshot()
	deflate := func(raw []byte, level int) string {
		var b bytes.Buffer
		zw, _ := flate.NewWriter(&b, level)
		zw.Write(raw)
		zw.Close()
		return base64.StdEncoding.EncodeToString(b.Bytes())
	}
	unpacked, err := unpack(good.Envelope, good.Packed)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]Snapshot{
		"both":           {Envelope: good.Envelope, World: &unpacked, Packed: good.Packed},
		"neither":        {Envelope: good.Envelope},
		"not base64":     {Envelope: good.Envelope, Packed: "@@@"},
		"not deflate":    {Envelope: good.Envelope, Packed: base64.StdEncoding.EncodeToString([]byte("plain text"))},
		"small world":    {Envelope: small.Envelope, Packed: pack([]byte(demo.MustJSON(*small.World)))},
		"another level":  {Envelope: good.Envelope, Packed: deflate([]byte(demo.MustJSON(unpacked)), flate.BestCompression)},
		"unknown field":  {Envelope: good.Envelope, Packed: deflate(append([]byte(`{"extra":1,`), demo.MustJSON(unpacked)[1:]...), flate.BestSpeed)},
		"a deflate bomb": {Envelope: good.Envelope, Packed: deflate(bytes.Repeat([]byte(" "), 1<<20), flate.BestSpeed)},
		"a big plain":    {Envelope: good.Envelope, World: &unpacked},
	}
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := Kind.Restore(demo.Options{}, json.RawMessage(demo.MustJSON(s))); err == nil {
				t.Fatal("accepted")
			}
		})
	}
	if _, err := Kind.Restore(demo.Options{}, json.RawMessage(demo.MustJSON(good))); err != nil {
		t.Fatalf("the good packed snapshot was refused: %v", err)
	}
}
