package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"os"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"
)

// Image limits: the longest side an image is sent at (larger ones are downscaled, keeping
// their shape), the encoded bytes sent at most, and the pixels decoded at most (a small file
// can declare a huge image).
const (
	imageEdge      = 1568
	maxImageBytes  = 1 << 20
	maxImagePixels = 50_000_000
)

// decoders are the image formats read_document reads, by the name image.DecodeConfig gives.
var decoders = map[string]struct {
	config func(io.Reader) (image.Config, error)
	decode func(io.Reader) (image.Image, error)
}{
	"png":  {png.DecodeConfig, png.Decode},
	"jpeg": {jpeg.DecodeConfig, jpeg.Decode},
	"gif":  {gif.DecodeConfig, gif.Decode},
	"webp": {webp.DecodeConfig, webp.Decode},
}

// imageOut describes the image sent.
type imageOut struct {
	MIMEType       string `json:"mime_type"`
	Width          int    `json:"width"`
	Height         int    `json:"height"`
	OriginalWidth  int    `json:"original_width"`
	OriginalHeight int    `json:"original_height"`
	Bytes          int    `json:"bytes"`
}

type encodedImage struct {
	imageOut
	data []byte
}

func (i encodedImage) describe(path string) string {
	s := fmt.Sprintf("%s: %s, %d×%d, %d bytes", path, i.MIMEType, i.Width, i.Height, i.Bytes)
	if i.Width != i.OriginalWidth || i.Height != i.OriginalHeight {
		s += fmt.Sprintf(" (downscaled from %d×%d)", i.OriginalWidth, i.OriginalHeight)
	}
	return s
}

// format is the image format of r's content, or "" if it is none read_document reads.
func format(r io.ReaderAt) string {
	head := make([]byte, 16)
	n, _ := r.ReadAt(head, 0)
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return "jpeg"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "gif"
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return "webp"
	}
	return ""
}

func isImage(f *os.File) bool { return format(f) != "" }

// readImage decodes an image and encodes it for the model: unchanged when it is a PNG or JPEG
// within imageEdge and maxImageBytes, else downscaled to fit imageEdge and encoded as PNG
// (JPEG for photographs, or when the PNG is over maxImageBytes).
func readImage(f *os.File, size int64) (encodedImage, error) {
	name := format(f)
	dec := decoders[name]
	cfg, err := dec.config(io.NewSectionReader(f, 0, size))
	if err != nil {
		return encodedImage{}, fmt.Errorf("the %s image could not be read: %w", name, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > maxImagePixels {
		return encodedImage{}, fmt.Errorf("the image is %d×%d pixels; read_document decodes at most %d pixels", cfg.Width, cfg.Height, maxImagePixels)
	}
	out := encodedImage{imageOut: imageOut{OriginalWidth: cfg.Width, OriginalHeight: cfg.Height, Width: cfg.Width, Height: cfg.Height}}
	fits := cfg.Width <= imageEdge && cfg.Height <= imageEdge
	if fits && size <= maxImageBytes && (name == "png" || name == "jpeg") {
		data, err := io.ReadAll(io.NewSectionReader(f, 0, size))
		if err != nil {
			return encodedImage{}, err
		}
		out.data, out.MIMEType, out.Bytes = data, "image/"+name, len(data)
		return out, nil
	}
	src, err := dec.decode(io.NewSectionReader(f, 0, size))
	if err != nil {
		return encodedImage{}, fmt.Errorf("the %s image could not be read: %w", name, err)
	}
	if !fits {
		w, h := cfg.Width, cfg.Height
		if w >= h {
			w, h = imageEdge, max(1, h*imageEdge/w)
		} else {
			w, h = max(1, w*imageEdge/h), imageEdge
		}
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
		src, out.Width, out.Height = dst, w, h
	}
	var buf bytes.Buffer
	if name != "jpeg" && name != "webp" {
		if err := png.Encode(&buf, src); err != nil {
			return encodedImage{}, err
		}
		out.MIMEType = "image/png"
	}
	if out.MIMEType == "" || buf.Len() > maxImageBytes {
		buf.Reset()
		if err := jpeg.Encode(&buf, opaque(src), &jpeg.Options{Quality: 85}); err != nil {
			return encodedImage{}, err
		}
		out.MIMEType = "image/jpeg"
	}
	if buf.Len() > maxImageBytes {
		return encodedImage{}, fmt.Errorf("the image is %d bytes as JPEG even at %d×%d, more than the %d sent", buf.Len(), out.Width, out.Height, maxImageBytes)
	}
	out.data, out.Bytes = buf.Bytes(), buf.Len()
	return out, nil
}

// opaque draws img over white, so that transparent parts do not turn black in a JPEG.
func opaque(img image.Image) image.Image {
	dst := image.NewRGBA(img.Bounds())
	draw.Draw(dst, dst.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(dst, dst.Bounds(), img, img.Bounds().Min, draw.Over)
	return dst
}
