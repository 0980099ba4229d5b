package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// accessTokenLifetime is how long an access token works; a key stays published this long
// (plus clock skew) after it stops signing.
const accessTokenLifetime = 10 * time.Minute

// keyOverlap is how long a retired key stays in the JWKS: its last token's lifetime plus skew.
const keyOverlap = accessTokenLifetime + 2*time.Minute

// signingKey is one ES256 key pair.
type signingKey struct {
	id      string
	priv    *ecdsa.PrivateKey
	created time.Time
	retired time.Time // zero while it signs
}

// SignatureAlgorithm, Key and ID make a signingKey an op.SigningKey.
func (k *signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.ES256 }
func (k *signingKey) Key() any                                    { return k.priv }
func (k *signingKey) ID() string                                  { return k.id }

// publicKey is a key as the JWKS publishes it (an op.Key).
type publicKey struct{ k *signingKey }

func (p publicKey) ID() string                         { return p.k.id }
func (p publicKey) Algorithm() jose.SignatureAlgorithm { return jose.ES256 }
func (p publicKey) Use() string                        { return "sig" }
func (p publicKey) Key() any                           { return &p.k.priv.PublicKey }

// signs reports whether k is the key to sign with at now.
func (k *signingKey) signs(now time.Time, life time.Duration) bool {
	return k.retired.IsZero() && now.Sub(k.created) < life
}

// keyring hands out the signing key, rotating it when it is older than lifetime, and the
// public keys still in use. Keys live in the database so host commands (auth keys rotate)
// and restarts see the same ones; parsed keys are cached by id.
type keyring struct {
	db       *db
	lifetime time.Duration
	mu       sync.Mutex
	parsed   map[string]*ecdsa.PrivateKey
}

func newKeyring(d *db, lifetime time.Duration) *keyring {
	return &keyring{db: d, lifetime: lifetime, parsed: map[string]*ecdsa.PrivateKey{}}
}

// load reads every key from the database, newest first.
func (kr *keyring) load(ctx context.Context) ([]*signingKey, error) {
	rows, err := kr.db.sql.QueryContext(ctx, "SELECT id, private, created, retired FROM keys ORDER BY created DESC, rowid DESC")
	if err != nil {
		return nil, fmt.Errorf("read signing keys: %w", err)
	}
	defer rows.Close()
	var keys []*signingKey
	for rows.Next() {
		var (
			id               string
			der              []byte
			created, retired int64
		)
		if err := rows.Scan(&id, &der, &created, &retired); err != nil {
			return nil, fmt.Errorf("read signing keys: %w", err)
		}
		kr.mu.Lock()
		priv, ok := kr.parsed[id]
		kr.mu.Unlock()
		if !ok {
			k, err := x509.ParsePKCS8PrivateKey(der)
			if err != nil {
				return nil, fmt.Errorf("signing key %s is damaged: %w", id, err)
			}
			if priv, ok = k.(*ecdsa.PrivateKey); !ok {
				return nil, fmt.Errorf("signing key %s is not an EC key", id)
			}
			kr.mu.Lock()
			kr.parsed[id] = priv
			kr.mu.Unlock()
		}
		sk := &signingKey{id: id, priv: priv, created: time.Unix(created, 0)}
		if retired > 0 {
			sk.retired = time.Unix(retired, 0)
		}
		keys = append(keys, sk)
	}
	return keys, rows.Err()
}

// current returns the key that signs now, making a new one when there is none or the newest
// has outlived the key lifetime (the old one is retired, still published for keyOverlap).
func (kr *keyring) current(ctx context.Context) (*signingKey, error) {
	keys, err := kr.load(ctx)
	if err != nil {
		return nil, err
	}
	now := kr.db.now()
	for _, k := range keys {
		if k.signs(now, kr.lifetime) {
			return k, nil
		}
	}
	if err := kr.rotate(ctx); err != nil {
		return nil, err
	}
	return kr.current(ctx)
}

// rotate retires the signing key and makes a new one.
func (kr *keyring) rotate(ctx context.Context) error {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generate signing key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return fmt.Errorf("encode signing key: %w", err)
	}
	now := kr.db.now().Unix()
	tx, err := kr.db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("rotate signing key: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE keys SET retired = ? WHERE retired = 0", now); err != nil {
		return fmt.Errorf("retire signing key: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO keys (id, private, created) VALUES (?, ?, ?)", randomToken(12), der, now); err != nil {
		return fmt.Errorf("store signing key: %w", err)
	}
	// Keys retired long enough ago that no token they signed still works are deleted.
	if _, err := tx.ExecContext(ctx, "DELETE FROM keys WHERE retired > 0 AND retired < ?", now-int64(keyOverlap.Seconds())); err != nil {
		return fmt.Errorf("delete old signing keys: %w", err)
	}
	return tx.Commit()
}

// published returns the public keys a resource server may still meet: the signing key, and
// keys that stopped signing (retired or expired) less than keyOverlap ago.
func (kr *keyring) published(ctx context.Context) ([]op.Key, error) {
	if _, err := kr.current(ctx); err != nil { // makes the first key, or a fresh one when it expired
		return nil, err
	}
	keys, err := kr.load(ctx)
	if err != nil {
		return nil, err
	}
	now := kr.db.now()
	var out []op.Key
	for _, k := range keys {
		end := k.retired
		if end.IsZero() || k.created.Add(kr.lifetime).Before(end) {
			end = k.created.Add(kr.lifetime)
		}
		if now.Before(end.Add(keyOverlap)) {
			out = append(out, publicKey{k})
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no signing key")
	}
	return out, nil
}
