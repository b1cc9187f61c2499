// Package metrics holds reviewd's Prometheus metrics (prometheus/client_golang) and
// the /metrics handler. The instrumented packages (web, store, jobs, outbound, mail)
// do not import it: each offers a small hook, and Metrics provides the functions
// that app.Open and the command line plug into them. It imports store only to read
// pool statistics and queue depths at scrape time.
package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"reviewd/app/mail"
	"reviewd/store"
)

// Namespace prefixes every metric name.
const Namespace = "reviewd"

// Metrics is one registry with every reviewd metric. The zero of a *Metrics is nil,
// and every method of a nil *Metrics does nothing, so callers need no checks.
type Metrics struct {
	reg *prometheus.Registry

	requests     *prometheus.HistogramVec
	txWait       prometheus.Histogram
	txHeld       *prometheus.HistogramVec
	jobRuns      *prometheus.CounterVec
	jobDuration  *prometheus.HistogramVec
	outbound     *prometheus.CounterVec
	outboundTime *prometheus.HistogramVec
	mailSent     prometheus.Counter
	mailFailed   *prometheus.CounterVec
}

// New builds a registry with the Go runtime and process collectors and every
// reviewd metric.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	f := func(c prometheus.Collector) { reg.MustRegister(c) }
	m := &Metrics{reg: reg}
	m.requests = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: Namespace, Subsystem: "http", Name: "request_duration_seconds",
		Help:    "HTTP requests by method, route template (unmatched for none) and status; _count is the number of requests.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"method", "route", "status"})
	m.txWait = prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: Namespace, Subsystem: "db", Name: "write_tx_wait_seconds",
		Help:    "Time a write transaction waited for the write connection and SQLite's write lock.",
		Buckets: []float64{.0001, .0005, .001, .005, .01, .05, .1, .5, 1, 5, 10},
	})
	m.txHeld = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: Namespace, Subsystem: "db", Name: "write_tx_seconds",
		Help:    "Time a write transaction held the write connection, by outcome (commit or rollback).",
		Buckets: []float64{.0001, .0005, .001, .005, .01, .05, .1, .5, 1, 5, 10},
	}, []string{"outcome"})
	m.jobRuns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Subsystem: "job", Name: "runs_total",
		Help: "Background job runs by job and outcome (ok, error, skipped); outcome error counts failures.",
	}, []string{"job", "outcome"})
	m.jobDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: Namespace, Subsystem: "job", Name: "duration_seconds",
		Help:    "Duration of background job runs by job.",
		Buckets: []float64{.01, .05, .1, .5, 1, 5, 10, 30, 60, 300, 1800},
	}, []string{"job"})
	m.outbound = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Subsystem: "outbound", Name: "requests_total",
		Help: "Outbound HTTP calls by target kind (notice, shopify, woocommerce, magento, other) and result (status class 2xx..5xx, or the failure code).",
	}, []string{"target", "result"})
	m.outboundTime = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: Namespace, Subsystem: "outbound", Name: "request_duration_seconds",
		Help:    "Duration of outbound HTTP calls by target kind.",
		Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"target"})
	m.mailSent = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: Namespace, Subsystem: "mail", Name: "sent_total",
		Help: "E-mails accepted by the SMTP server.",
	})
	m.mailFailed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Subsystem: "mail", Name: "failed_total",
		Help: "E-mails not sent, by reason (smtp_status: <code>, connection_failed, address_invalid, message_invalid, mail_disabled) and whether a retry can help.",
	}, []string{"reason", "temporary"})
	for _, c := range []prometheus.Collector{m.requests, m.txWait, m.txHeld, m.jobRuns, m.jobDuration,
		m.outbound, m.outboundTime, m.mailSent, m.mailFailed} {
		f(c)
	}
	return m
}

// Registry is the registry behind Handler, for tests and extra collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// ObserveRequest implements web.RequestObserver.
func (m *Metrics) ObserveRequest(method, route string, status int, d time.Duration) {
	if m == nil {
		return
	}
	if route == "" {
		route = "unmatched"
	}
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Observe(d.Seconds())
}

// ObserveWriteTx is a store.WriteTxObserver.
func (m *Metrics) ObserveWriteTx(wait, held time.Duration, committed bool) {
	if m == nil {
		return
	}
	m.txWait.Observe(wait.Seconds())
	outcome := "rollback"
	if committed {
		outcome = "commit"
	}
	m.txHeld.WithLabelValues(outcome).Observe(held.Seconds())
}

// ObserveJob is the jobs.Runner hook.
func (m *Metrics) ObserveJob(job, outcome string, d time.Duration) {
	if m == nil {
		return
	}
	m.jobRuns.WithLabelValues(job, outcome).Inc()
	m.jobDuration.WithLabelValues(job).Observe(d.Seconds())
}

// ObserveOutbound is the outbound.Config hook. code is the outbound failure code
// ("" when an answer came back).
func (m *Metrics) ObserveOutbound(target string, status int, code string, d time.Duration) {
	if m == nil {
		return
	}
	result := code
	if code == "" {
		result = strconv.Itoa(status/100) + "xx"
	}
	m.outbound.WithLabelValues(target, result).Inc()
	m.outboundTime.WithLabelValues(target).Observe(d.Seconds())
}

// ObserveMail is the mail.Config hook.
func (m *Metrics) ObserveMail(err *mail.SendError) {
	if m == nil {
		return
	}
	if err == nil {
		m.mailSent.Inc()
		return
	}
	m.mailFailed.WithLabelValues(err.Reason, strconv.FormatBool(err.Temporary)).Inc()
}

// WatchStore adds the collectors that read db at scrape time: the read and write
// pools' statistics and the queue depths. now is the service clock.
func (m *Metrics) WatchStore(db *store.DB, now func() time.Time, log *slog.Logger) {
	if m == nil {
		return
	}
	m.reg.MustRegister(&storeCollector{db: db, now: now, log: log})
}

var (
	poolOpen = prometheus.NewDesc(Namespace+"_db_pool_open_connections",
		"Open connections of the read and write pools.", []string{"pool"}, nil)
	poolInUse = prometheus.NewDesc(Namespace+"_db_pool_in_use_connections",
		"Connections in use.", []string{"pool"}, nil)
	poolWaits = prometheus.NewDesc(Namespace+"_db_pool_waits_total",
		"Times a caller waited for a free connection of the pool.", []string{"pool"}, nil)
	poolWaited = prometheus.NewDesc(Namespace+"_db_pool_wait_seconds_total",
		"Total time callers waited for a free connection of the pool.", []string{"pool"}, nil)
	queueDepth = prometheus.NewDesc(Namespace+"_queue_depth",
		"Work waiting in the background queues: invitations_due (queued messages due now), notices_retrying and emails_retrying (queued after a temporary failure), media_waiting (uploads not processed yet).",
		[]string{"queue"}, nil)
)

// storeCollector reads the pools' statistics and the queue depths at scrape time.
type storeCollector struct {
	db  *store.DB
	now func() time.Time
	log *slog.Logger
}

func (c *storeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolOpen, poolInUse, poolWaits, poolWaited, queueDepth} {
		ch <- d
	}
}

func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	read, write := c.db.PoolStats()
	for pool, s := range map[string]struct {
		open, inUse, waits int64
		waited             time.Duration
	}{
		"read":  {int64(read.OpenConnections), int64(read.InUse), read.WaitCount, read.WaitDuration},
		"write": {int64(write.OpenConnections), int64(write.InUse), write.WaitCount, write.WaitDuration},
	} {
		ch <- prometheus.MustNewConstMetric(poolOpen, prometheus.GaugeValue, float64(s.open), pool)
		ch <- prometheus.MustNewConstMetric(poolInUse, prometheus.GaugeValue, float64(s.inUse), pool)
		ch <- prometheus.MustNewConstMetric(poolWaits, prometheus.CounterValue, float64(s.waits), pool)
		ch <- prometheus.MustNewConstMetric(poolWaited, prometheus.CounterValue, s.waited.Seconds(), pool)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	d, err := c.db.Read().QueueDepths(ctx, c.now())
	if err != nil {
		// A scrape must not fail over one reading: the queue depths are left out.
		if c.log != nil {
			c.log.Warn("metrics: queue depths not read", "err", err)
		}
		return
	}
	for q, n := range map[string]int64{"invitations_due": d.InvitationsDue, "notices_retrying": d.NoticesRetrying,
		"emails_retrying": d.EmailsRetrying, "media_waiting": d.MediaWaiting} {
		ch <- prometheus.MustNewConstMetric(queueDepth, prometheus.GaugeValue, float64(n), q)
	}
}

// Handler serves the registry in the Prometheus text (or OpenMetrics) format. It
// checks no credentials: the caller mounts it on a separate address or behind a
// bearer token.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
