package main

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// apiDelay is how long the single-page app's JSON API takes to answer, as a real API does: a
// server that answers before the app has rendered what it fetched shows a page still loading.
const apiDelay = 80 * time.Millisecond

// tableRows is the size of the long table page (/table).
const tableRows = 5000

type order struct {
	ID       string `json:"id"`
	Customer string `json:"customer"`
	Address  string `json:"address"`
	Total    string `json:"total"`
	Status   string `json:"status"`
	Date     string `json:"date,omitempty"`
}

// orderBook is the single-page app's data: twelve orders, and those the app creates.
type orderBook struct {
	mu     sync.Mutex
	orders []order
}

func newOrderBook() *orderBook {
	b := &orderBook{}
	customers := []string{"Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra", "Barbara Liskov", "Donald Knuth"}
	for i := range 12 {
		b.orders = append(b.orders, order{
			ID: strconv.Itoa(1001 + i), Customer: customers[i%len(customers)],
			Address: fmt.Sprintf("%d Harbour Street, Leith", 10+i*7),
			Total:   fmt.Sprintf("€%d.%02d", 20+i*13, i*7%100), Status: []string{"paid", "shipped", "delivered"}[i%3],
		})
	}
	return b
}

// benchRoutes adds the benchmark's dynamic pages to the test site: the single-page app's routes
// and JSON API, the 5,000-row table, and the pages the article's and dashboard's links lead to.
func benchRoutes(mux *http.ServeMux) {
	book := newOrderBook()
	spa := func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, "testdata/spa.html") }
	mux.HandleFunc("GET /app", spa)
	mux.HandleFunc("GET /app/", spa)
	writeJSON := func(w http.ResponseWriter, v any) {
		time.Sleep(apiDelay)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("GET /api/orders", func(w http.ResponseWriter, r *http.Request) {
		book.mu.Lock()
		list := append([]order(nil), book.orders...)
		book.mu.Unlock()
		writeJSON(w, list)
	})
	mux.HandleFunc("GET /api/orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		book.mu.Lock()
		defer book.mu.Unlock()
		for _, o := range book.orders {
			if o.ID == r.PathValue("id") {
				writeJSON(w, o)
				return
			}
		}
		http.NotFound(w, r)
	})
	mux.HandleFunc("POST /api/orders", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Customer, Date, Qty, Express string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Customer == "" {
			http.Error(w, "a customer is needed", http.StatusBadRequest)
			return
		}
		book.mu.Lock()
		o := order{ID: strconv.Itoa(1001 + len(book.orders)), Customer: in.Customer, Address: "to be confirmed",
			Total: "€" + in.Qty + "0.00", Status: "placed for " + in.Date, Date: in.Date}
		book.orders = append(book.orders, o)
		book.mu.Unlock()
		writeJSON(w, o)
	})
	mux.HandleFunc("GET /table", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(tablePage(tableRows)))
	})
	mux.HandleFunc("GET /hosts/{name}", func(w http.ResponseWriter, r *http.Request) {
		name := html.EscapeString(r.PathValue("name"))
		fmt.Fprintf(w, `<!doctype html><html lang="en"><title>%s — Fleet</title><main><h1>Host %s</h1>
<p>Kernel 6.1.0-28-amd64. Last health check passed 2 minutes ago.</p><p><a href="/dashboard.html">Back to the dashboard</a></p></main>`, name, name)
	})
	mux.HandleFunc("GET /related/{n}", func(w http.ResponseWriter, r *http.Request) {
		n := html.EscapeString(r.PathValue("n"))
		fmt.Fprintf(w, `<!doctype html><html lang="en"><title>Related article %s — Garden Notes</title><main><h1>Related article %s</h1>
<p>This article is printed in the spring edition.</p><p><a href="/article.html">Back to the article</a></p></main>`, n, n)
	})
}

// tableHost is row i of the long table, as the page shows it.
func tableHost(i int) (name, status, cpu, region string) {
	return fmt.Sprintf("host-%05d", i), []string{"running", "running", "degraded", "running", "stopped", "running", "draining"}[(i*5+i/7)%7],
		fmt.Sprintf("%d%%", i*37%100), []string{"eu-west-1", "us-east-2", "ap-south-1", "sa-east-1"}[i%4]
}

// tablePage is a page with one table of rows hosts, each with a link.
func tablePage(rows int) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Inventory — 5,000 hosts</title></head><body><main>
<h1>Inventory</h1><p>Every host the fleet has, one row each.</p>
<table><thead><tr><th>Host</th><th>Status</th><th>CPU</th><th>Region</th><th>Owner</th></tr></thead><tbody>
`)
	for i := range rows {
		name, status, cpu, region := tableHost(i)
		fmt.Fprintf(&b, "<tr><td><a href=\"/hosts/%s\">%s</a></td><td>%s</td><td>%s</td><td>%s</td><td>team-%d</td></tr>\n", name, name, status, cpu, region, i%23)
	}
	b.WriteString("</tbody></table></main></body></html>\n")
	return b.String()
}
