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

// accessTokenLifetime is how long an access token works.
const accessTokenLifetime = 10 * time.Minute

// keyOverlap is how long a key stays in the JWKS after it stops signing: its last token's
// lifetime plus clock skew.
const keyOverlap = accessTokenLifetime + 2*time.Minute

// keyLead is how long a new key is published before it signs. A resource server refetches the
// JWKS for an unknown kid at most every 10 s, so one that fetched just before a rotation would
// refuse the first tokens of a key that signed at once; a minute ahead it already has it.
const keyLead = time.Minute

// signingKey is one ES256 key pair.
type signingKey struct {
	id         string
	priv       *ecdsa.PrivateKey
	activeFrom time.Time
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

// load reads every key from the database, the one that signs last first.
func (kr *keyring) load(ctx context.Context) ([]*signingKey, error) {
	rows, err := kr.db.sql.QueryContext(ctx, "SELECT id, private, active_from FROM keys ORDER BY active_from DESC, rowid DESC")
	if err != nil {
		return nil, fmt.Errorf("read signing keys: %w", err)
	}
	defer rows.Close()
	var keys []*signingKey
	for rows.Next() {
		var (
			id   string
			der  []byte
			from int64
		)
		if err := rows.Scan(&id, &der, &from); err != nil {
			return nil, fmt.Errorf("read signing keys: %w", err)
		}
		priv, err := kr.parse(id, der)
		if err != nil {
			return nil, err
		}
		keys = append(keys, &signingKey{id: id, priv: priv, activeFrom: time.Unix(from, 0)})
	}
	return keys, rows.Err()
}

func (kr *keyring) parse(id string, der []byte) (*ecdsa.PrivateKey, error) {
	kr.mu.Lock()
	defer kr.mu.Unlock()
	if priv, ok := kr.parsed[id]; ok {
		return priv, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("signing key %s is damaged: %w", id, err)
	}
	priv, ok := k.(*ecdsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("signing key %s is not an EC key", id)
	}
	kr.parsed[id] = priv
	return priv, nil
}

// current returns the key that signs now: the newest whose time has come. The first key
// signs at once; when the signing key has outlived the key lifetime and no successor is
// waiting, a successor is made that signs keyLead later.
func (kr *keyring) current(ctx context.Context) (*signingKey, error) {
	keys, err := kr.load(ctx)
	if err != nil {
		return nil, err
	}
	now := kr.db.now()
	var signing *signingKey
	pending := false
	for _, k := range keys {
		if k.activeFrom.After(now) {
			pending = true
			continue
		}
		signing = k
		break
	}
	if signing == nil {
		if pending { // only a waiting key (a clock set back): sign with it rather than nothing
			return keys[len(keys)-1], nil
		}
		if err := kr.add(ctx, now); err != nil {
			return nil, err
		}
		return kr.current(ctx)
	}
	if !pending && now.Sub(signing.activeFrom) >= kr.lifetime {
		if err := kr.add(ctx, now.Add(keyLead)); err != nil {
			return nil, err
		}
	}
	return signing, nil
}

// rotate makes a new key that starts signing keyLead from now.
func (kr *keyring) rotate(ctx context.Context) (*signingKey, error) {
	from := kr.db.now().Add(keyLead)
	if err := kr.add(ctx, from); err != nil {
		return nil, err
	}
	keys, err := kr.load(ctx)
	if err != nil {
		return nil, err
	}
	return keys[0], nil
}

// add stores a new key that signs from the given time, and deletes keys no token can need.
func (kr *keyring) add(ctx context.Context, from time.Time) error {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generate signing key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return fmt.Errorf("encode signing key: %w", err)
	}
	now := kr.db.now()
	if _, err := kr.db.sql.ExecContext(ctx, "INSERT INTO keys (id, private, created, active_from) VALUES (?, ?, ?, ?)",
		randomToken(12), der, now.Unix(), from.Unix()); err != nil {
		return fmt.Errorf("store signing key: %w", err)
	}
	keys, err := kr.load(ctx)
	if err != nil {
		return err
	}
	for _, k := range kr.unpublished(keys, now) {
		if _, err := kr.db.sql.ExecContext(ctx, "DELETE FROM keys WHERE id = ?", k.id); err != nil {
			return fmt.Errorf("delete old signing key: %w", err)
		}
	}
	return nil
}

// unpublished lists the keys that stopped signing more than keyOverlap ago (keys is newest first).
func (kr *keyring) unpublished(keys []*signingKey, now time.Time) []*signingKey {
	var out []*signingKey
	for i := 1; i < len(keys); i++ {
		if end := keys[i-1].activeFrom; !end.After(now) && now.Sub(end) > keyOverlap {
			out = append(out, keys[i])
		}
	}
	return out
}

// published returns the public keys a resource server may meet: any waiting to sign, the
// signing key, and keys that stopped signing less than keyOverlap ago.
func (kr *keyring) published(ctx context.Context) ([]op.Key, error) {
	if _, err := kr.current(ctx); err != nil { // makes the first key, or the successor when due
		return nil, err
	}
	keys, err := kr.load(ctx)
	if err != nil {
		return nil, err
	}
	old := kr.unpublished(keys, kr.db.now())
	var out []op.Key
	for _, k := range keys {
		if !containsKey(old, k) {
			out = append(out, publicKey{k})
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no signing key")
	}
	return out, nil
}

func containsKey(l []*signingKey, k *signingKey) bool {
	for _, x := range l {
		if x.id == k.id {
			return true
		}
	}
	return false
}
