package server

import (
	"net/http"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/reconcile-demo/reconcile-demo/rooms"
	"github.com/reconcile-demo/reconcile-demo/sockets"
)

// metrics are the server's Prometheus metrics, on a registry of its own so
// that tests can run many servers in one process.
type metrics struct {
	reg             *prometheus.Registry
	sessions        prometheus.Gauge
	sockets         prometheus.Gauge
	framesSent      prometheus.Counter
	framesCoalesced prometheus.Counter
	actions         *prometheus.CounterVec
	acted           atomic.Int64 // actions, all kinds: Server.Actions
	rejected        *prometheus.CounterVec
	reconciles      *prometheus.CounterVec
	roomsOpen       prometheus.Gauge
	followers       prometheus.Gauge
	roomLookups     *prometheus.CounterVec
	roomResyncs     *prometheus.CounterVec
	roomLosses      prometheus.Counter
	roomTakeovers   prometheus.Counter
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		sessions: prometheus.NewGauge(prometheus.GaugeOpts{Name: "reconcile_demo_sessions",
			Help: "Live sessions: one per demo a visitor has open, until it expires."}),
		sockets: prometheus.NewGauge(prometheus.GaugeOpts{Name: "reconcile_demo_sockets",
			Help: "Open WebSocket connections."}),
		framesSent: prometheus.NewCounter(prometheus.CounterOpts{Name: "reconcile_demo_frames_sent_total",
			Help: "Frames (sets of changed fragments) written to sockets."}),
		framesCoalesced: prometheus.NewCounter(prometheus.CounterOpts{Name: "reconcile_demo_frames_coalesced_total",
			Help: "Frames merged into an unsent one because the socket was still busy."}),
		actions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "reconcile_demo_actions_total",
			Help: "Accepted visitor actions, by demo and kind."}, []string{"demo", "action"}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "reconcile_demo_rejected_total",
			Help: "Refused visitor inputs, by reason."}, []string{"reason"}),
		reconciles: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "reconcile_demo_reconciles_total",
			Help: "Reconciles run by the demos' controllers, by demo."}, []string{"demo"}),
		roomsOpen: prometheus.NewGauge(prometheus.GaugeOpts{Name: "reconcile_demo_rooms",
			Help: "Open rooms whose owner's session is on this process."}),
		followers: prometheus.NewGauge(prometheus.GaugeOpts{Name: "reconcile_demo_room_followers",
			Help: "Sockets following a room on this process, whoever owns the room."}),
		roomLookups: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "reconcile_demo_room_lookups_total",
			Help: "Room codes looked up by followers' pages and sockets, by result (here, elsewhere, not_found, limited)."},
			[]string{"result"}),
		roomResyncs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "reconcile_demo_room_resyncs_total",
			Help: "Whole demos a room's followers here asked their owner for again, by what was missed (gap, reconnect, slow, owner)."},
			[]string{"reason"}),
		roomLosses: prometheus.NewCounter(prometheus.CounterOpts{Name: "reconcile_demo_room_owner_losses_total",
			Help: "Rooms followed here whose owner fell silent for three announce periods."}),
		roomTakeovers: prometheus.NewCounter(prometheus.CounterOpts{Name: "reconcile_demo_room_takeovers_total",
			Help: "Rooms claimed back here by their owner's page with its secret (after a restart, a replica's death or a move)."}),
	}
	m.reg.MustRegister(m.sessions, m.sockets, m.framesSent, m.framesCoalesced, m.actions, m.rejected, m.reconciles,
		m.roomsOpen, m.followers, m.roomLookups, m.roomResyncs, m.roomLosses, m.roomTakeovers,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// rooms are the metrics the rooms count.
func (m *metrics) rooms() rooms.Metrics {
	return rooms.Metrics{Rooms: m.roomsOpen, Followers: m.followers, Losses: m.roomLosses, Takeovers: m.roomTakeovers,
		Lookups: func(r string) sockets.Counter { return m.roomLookups.WithLabelValues(r) },
		Resyncs: func(r string) sockets.Counter { return m.roomResyncs.WithLabelValues(r) }}
}

func promHandler(m *metrics) http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
