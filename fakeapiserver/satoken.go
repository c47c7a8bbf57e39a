package fakeapiserver

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"k8s.io/apiserver/pkg/authentication/authenticator"
)

// Service-account tokens as kube-apiserver mints and checks them
// (kubernetes pkg/serviceaccount/jwt.go and claims.go): a compact JWS
// signed ES256 with a key made per server, whose "kid" is the key's ID as
// kube-apiserver derives it (keyIDFromPublicKey), carrying the public
// claims (iss, sub, aud, exp, nbf, iat, jti) and the kubernetes.io private
// claims, keys in byte order as go-jose writes the merged claims.

const (
	// defaultServiceAccountIssuer is [Config.ServiceAccountIssuer]'s
	// default: the issuer kubeadm and kind configure
	// (--service-account-issuer), which is also the API audience.
	defaultServiceAccountIssuer = "https://kubernetes.default.svc.cluster.local"
	// jwtLeeway is go-jose's jwt.DefaultLeeway, the clock skew token
	// validation tolerates on exp, nbf and iat.
	jwtLeeway = time.Minute
	// es256Size is the length of each of r and s in an ES256 signature.
	es256Size = 32
)

// jwtHeader is the protected header kube-apiserver writes.
type jwtHeader struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
}

// saClaims are a service-account token's claims, public and private, in
// the JSON go-jose writes for them (field order is key order).
type saClaims struct {
	Audience   []string  `json:"aud"`
	Expiry     int64     `json:"exp"`
	IssuedAt   int64     `json:"iat"`
	Issuer     string    `json:"iss"`
	ID         string    `json:"jti,omitempty"`
	Kubernetes k8sClaims `json:"kubernetes.io"`
	NotBefore  int64     `json:"nbf"`
	Subject    string    `json:"sub"`
}

// k8sClaims are the kubernetes.io private claims (claims.go kubernetes).
type k8sClaims struct {
	Namespace string    `json:"namespace,omitempty"`
	Node      *claimRef `json:"node,omitempty"`
	Pod       *claimRef `json:"pod,omitempty"`
	Secret    *claimRef `json:"secret,omitempty"`
	Svcacct   claimRef  `json:"serviceaccount"`
	WarnAfter int64     `json:"warnafter,omitempty"`
}

// claimRef names a bound object (claims.go ref).
type claimRef struct {
	Name string `json:"name,omitempty"`
	UID  string `json:"uid,omitempty"`
}

// tokenSigner signs and verifies one server's service-account tokens.
type tokenSigner struct {
	key *ecdsa.PrivateKey
	kid string
}

// newTokenSigner makes a fresh P-256 key, as a test kube-apiserver is
// given one (its --service-account-signing-key-file is ECDSA).
func newTokenSigner() (*tokenSigner, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("service-account signing key: %w", err)
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("service-account signing key: %w", err)
	}
	sum := sha256.Sum256(der)
	return &tokenSigner{key: key, kid: base64.RawURLEncoding.EncodeToString(sum[:])}, nil
}

// sign returns the compact JWS of claims.
func (ts *tokenSigner) sign(claims *saClaims) (string, error) {
	header, err := json.Marshal(jwtHeader{Alg: "ES256", Kid: ts.kid})
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	input := b64(header) + "." + b64(payload)
	digest := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, ts.key, digest[:])
	if err != nil {
		return "", fmt.Errorf("sign token: %w", err)
	}
	sig := make([]byte, 2*es256Size)
	r.FillBytes(sig[:es256Size])
	s.FillBytes(sig[es256Size:])
	return input + "." + b64(sig), nil
}

// errNotOurToken is the "no opinion" of a token that is no JWT of this
// server: other authenticators may know it.
var errNotOurToken = errors.New("fakeapiserver: not a service-account token of this server")

// verify checks token's signature and issuer and returns its claims. A
// token that is no JWS, or not of issuer, is errNotOurToken; a JWS of the
// issuer with a bad signature is kube-apiserver's "invalid signature".
func (ts *tokenSigner) verify(token, issuer string) (*saClaims, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, errNotOurToken
	}
	var claims saClaims
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil || json.Unmarshal(payload, &claims) != nil || claims.Issuer != issuer {
		// jwt.go hasCorrectIssuer: another issuer's token is no opinion.
		return nil, errNotOurToken
	}
	var h jwtHeader
	raw, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil || json.Unmarshal(raw, &h) != nil {
		return nil, errNotOurToken
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if h.Alg != "ES256" || err != nil || len(sig) != 2*es256Size {
		return nil, errors.New("invalid signature")
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	r, s := new(big.Int).SetBytes(sig[:es256Size]), new(big.Int).SetBytes(sig[es256Size:])
	if !ecdsa.Verify(&ts.key.PublicKey, digest[:], r, s) {
		// go-jose's error for a signature that does not verify.
		return nil, errors.New("go-jose/go-jose: error in cryptographic primitive")
	}
	return &claims, nil
}

// b64 is JWS's base64url without padding.
func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// checkTimes is jwt.Claims.Validate with the default leeway (claims.go
// validator.Validate), worded as kube-apiserver words each failure.
func checkTimes(c *saClaims, now time.Time) error {
	switch {
	case c.NotBefore != 0 && now.Add(jwtLeeway).Before(time.Unix(c.NotBefore, 0)):
		return errors.New("service account token is not valid yet")
	case c.Expiry != 0 && now.Add(-jwtLeeway).After(time.Unix(c.Expiry, 0)):
		return errors.New("service account token has expired")
	case c.IssuedAt != 0 && now.Add(jwtLeeway).Before(time.Unix(c.IssuedAt, 0)):
		return errors.New("service account token is issued in the future")
	}
	return nil
}

// serviceAccountTokens authenticates the tokens this server minted, as
// jwtTokenAuthenticator.AuthenticateToken does: the issuer and signature,
// then the token's audiences must meet the request's (the API audiences
// unless a TokenReview names others), then the times, then the service
// account and the object the token is bound to must still exist with the
// UIDs the token names (satoken_validate.go).
func (s *Server) serviceAccountTokens() authenticator.Token {
	return authenticator.TokenFunc(func(ctx context.Context, token string) (*authenticator.Response, bool, error) {
		claims, err := s.tokens.verify(token, s.issuer())
		if errors.Is(err, errNotOurToken) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		requested, ok := authenticator.AudiencesFrom(ctx)
		if !ok {
			requested = s.apiAudiences()
		}
		auds := authenticator.Audiences(claims.Audience).Intersect(requested)
		if len(auds) == 0 {
			return nil, false, fmt.Errorf("token audiences %q is invalid for the target audiences %q", claims.Audience, requested)
		}
		if err := checkTimes(claims, s.cfg.Clock.Now()); err != nil {
			return nil, false, err
		}
		info, err := s.validateTokenClaims(claims)
		if err != nil {
			return nil, false, err
		}
		return &authenticator.Response{User: info.UserInfo(), Audiences: auds}, true, nil
	})
}

// issuer is the iss of the tokens this server mints.
func (s *Server) issuer() string { return s.cfg.ServiceAccountIssuer }

// apiAudiences are the audiences a token must have to call the API:
// kube-apiserver's --api-audiences default, the issuer.
func (s *Server) apiAudiences() authenticator.Audiences {
	return authenticator.Audiences{s.cfg.ServiceAccountIssuer}
}
