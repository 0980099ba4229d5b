package googleserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
)

// The Google servers call the REST APIs directly with these few functions instead of linking
// google.golang.org/api's generated clients, which bring gRPC, protobuf and OpenTelemetry into
// every binary and cost each server about 6 MiB of resident memory at idle (docs/performance.md).
// Each server declares the fields it reads as its own small structs.

// checkResponse turns a non-2xx answer into an *APIError, consuming and closing its body.
func checkResponse(resp *http.Response) error {
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	return fromBody(resp.StatusCode, body)
}

// URL resolves a path against the API's endpoint: a relative path ("files/ID") is appended to
// it, an absolute one ("/upload/drive/v3/files") replaces its path, as the generated clients do.
// Path segments taken from callers must be escaped with url.PathEscape by the caller.
func (a *Account) URL(path string, query url.Values) string {
	u := a.Endpoint + path
	if strings.HasPrefix(path, "/") {
		base, err := url.Parse(a.Endpoint)
		if err == nil {
			base.Path, base.RawPath = "", ""
			u = strings.TrimSuffix(base.String(), "/") + path
		}
	}
	q := url.Values{}
	for k, v := range query {
		q[k] = v
	}
	q.Set("prettyPrint", "false")
	return u + "?" + q.Encode()
}

// Do sends one JSON request: in (when not nil) is the JSON body, out (when not nil) receives the
// JSON answer. A non-2xx answer is an *APIError.
func (a *Account) Do(ctx context.Context, method, path string, query url.Values, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encode %s request: %w", a.product.Name, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.URL(path, query), body)
	if err != nil {
		return fmt.Errorf("%s request: %w", a.product.Name, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return a.send(req, out)
}

// Upload sends metadata and content in one multipart/related request (uploadType=multipart), as
// Drive's create and update with media take them; path is the absolute upload path
// ("/upload/drive/v3/files").
func (a *Account) Upload(ctx context.Context, method, path string, query url.Values, meta any, content []byte, contentType string, out any) error {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mh := textproto.MIMEHeader{"Content-Type": {"application/json; charset=UTF-8"}}
	part, err := mw.CreatePart(mh)
	if err != nil {
		return fmt.Errorf("upload body: %w", err)
	}
	if err := json.NewEncoder(part).Encode(meta); err != nil {
		return fmt.Errorf("encode %s metadata: %w", a.product.Name, err)
	}
	if part, err = mw.CreatePart(textproto.MIMEHeader{"Content-Type": {contentType}}); err != nil {
		return fmt.Errorf("upload body: %w", err)
	}
	if _, err := part.Write(content); err != nil {
		return fmt.Errorf("upload body: %w", err)
	}
	if err := mw.Close(); err != nil {
		return fmt.Errorf("upload body: %w", err)
	}
	q := url.Values{}
	for k, v := range query {
		q[k] = v
	}
	q.Set("uploadType", "multipart")
	req, err := http.NewRequestWithContext(ctx, method, a.URL(path, q), bytes.NewReader(buf.Bytes()))
	if err != nil {
		return fmt.Errorf("%s upload: %w", a.product.Name, err)
	}
	req.Header.Set("Content-Type", "multipart/related; boundary="+mw.Boundary())
	return a.send(req, out)
}

// UploadResumable sends metadata and content as a resumable upload (uploadType=resumable):
// one request opens the session with the metadata, one PUT to the session's URL sends all the
// content. Google recommends it over multipart for content above 5 MB; path is the absolute
// upload path, as for Upload.
func (a *Account) UploadResumable(ctx context.Context, method, path string, query url.Values, meta any, content []byte, contentType string, out any) error {
	b, err := json.Marshal(meta)
	if err != nil {
		return fmt.Errorf("encode %s metadata: %w", a.product.Name, err)
	}
	q := url.Values{}
	for k, v := range query {
		q[k] = v
	}
	q.Set("uploadType", "resumable")
	req, err := http.NewRequestWithContext(ctx, method, a.URL(path, q), bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("%s upload: %w", a.product.Name, err)
	}
	req.Header.Set("Content-Type", "application/json; charset=UTF-8")
	req.Header.Set("X-Upload-Content-Type", contentType)
	req.Header.Set("X-Upload-Content-Length", strconv.Itoa(len(content)))
	resp, err := a.HTTP.Do(req)
	if err != nil {
		return err
	}
	if err := a.check(resp); err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	session := resp.Header.Get("Location")
	if session == "" {
		return fmt.Errorf("%s opened no upload session (no Location header)", a.product.Name)
	}
	put, err := http.NewRequestWithContext(ctx, http.MethodPut, session, bytes.NewReader(content))
	if err != nil {
		return fmt.Errorf("%s upload: %w", a.product.Name, err)
	}
	put.Header.Set("Content-Type", contentType)
	return a.send(put, out)
}

// Download starts a GET whose answer is content, not JSON (Drive's alt=media and export). The
// caller reads and closes the body; a non-2xx answer is an *APIError.
func (a *Account) Download(ctx context.Context, path string, query url.Values) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.URL(path, query), nil)
	if err != nil {
		return nil, fmt.Errorf("%s request: %w", a.product.Name, err)
	}
	resp, err := a.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	if err := a.check(resp); err != nil {
		return nil, err
	}
	return resp, nil
}

// check is checkResponse naming, in an *APIError, the account the call was made as.
func (a *Account) check(resp *http.Response) error {
	err := checkResponse(resp)
	var ae *APIError
	if errors.As(err, &ae) && resp.Request != nil {
		ae.Account = a.Label(resp.Request.Context())
	}
	return err
}

func (a *Account) send(req *http.Request, out any) error {
	req.Header.Set("Accept", "application/json")
	resp, err := a.HTTP.Do(req)
	if err != nil {
		return err
	}
	if err := a.check(resp); err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("decode %s answer: %w", a.product.Name, err)
	}
	return nil
}
