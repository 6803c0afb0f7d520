package payload

import (
	"math/rand/v2"
	"strconv"
)

// gen draws realistic values from a seeded PCG source. Our own small word
// lists rather than a fake-data library: the bytes must stay identical across
// dependency upgrades, since golden sizes and cross-run comparisons rest on them.
type gen struct {
	r *rand.Rand
}

func newGen(seed uint64) *gen {
	return &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (g *gen) pick(words []string) string { return words[g.r.IntN(len(words))] }

func (g *gen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

const hexDigits = "0123456789abcdef"

// uuid returns a random version-4 UUID in its canonical 36-character form.
func (g *gen) uuid() string {
	var b [36]byte
	hi, lo := g.r.Uint64(), g.r.Uint64()
	hi = hi&^(0xf<<12) | 0x4<<12 // version 4
	lo = lo&^(0x3<<62) | 0x2<<62 // RFC 4122 variant
	n := 0
	for i := range 32 {
		var nibble uint64
		if i < 16 {
			nibble = hi >> (60 - 4*i) & 0xf
		} else {
			nibble = lo >> (60 - 4*(i-16)) & 0xf
		}
		if i == 8 || i == 12 || i == 16 || i == 20 {
			b[n] = '-'
			n++
		}
		b[n] = hexDigits[nibble]
		n++
	}
	return string(b[:])
}

const upperAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// code returns n characters drawn from alphabet, e.g. an SKU or an id.
func (g *gen) code(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(b)
}

func (g *gen) digits(n int) string { return g.code("0123456789", n) }

// money formats cents as a decimal string with two places, as PayPal does.
func money(cents int) string {
	b := strconv.AppendInt(nil, int64(cents/100), 10)
	b = append(b, '.', byte('0'+cents%100/10), byte('0'+cents%10))
	return string(b)
}

// sentence returns between lo and hi lorem words, capitalised, with a full stop.
func (g *gen) sentence(lo, hi int) string {
	n := g.between(lo, hi)
	b := make([]byte, 0, n*8)
	for i := range n {
		if i > 0 {
			b = append(b, ' ')
		}
		w := g.pick(lorem)
		if i == 0 {
			b = append(b, w[0]-'a'+'A')
			w = w[1:]
		}
		b = append(b, w...)
	}
	return string(append(b, '.'))
}

// appendLorem appends lorem text to b until it holds exactly n bytes, with a
// newline every lineWidth bytes or so when lineWidth > 0.
func (g *gen) appendLorem(b []byte, n, lineWidth int) []byte {
	line := 0
	for len(b) < n {
		w := g.pick(lorem)
		sep := byte(' ')
		if lineWidth > 0 && line+len(w) > lineWidth {
			sep, line = '\n', 0
		}
		if len(b) > 0 {
			b = append(b, sep)
		}
		b = append(b, w...)
		line += len(w) + 1
	}
	return b[:n]
}

var (
	firstNames = []string{
		"james", "mary", "robert", "patricia", "john", "jennifer", "michael", "linda", "david", "elizabeth",
		"william", "barbara", "richard", "susan", "joseph", "jessica", "thomas", "sarah", "charles", "karen",
		"christopher", "lisa", "daniel", "nancy", "matthew", "betty", "anthony", "sandra", "mark", "margaret",
		"donald", "ashley", "steven", "kimberly", "andrew", "emily", "paul", "donna", "joshua", "michelle",
		"kenneth", "carol", "kevin", "amanda", "brian", "melissa", "george", "deborah", "timothy", "stephanie",
		"lukas", "emma", "mateo", "sofia", "oliver", "mia", "elias", "ingrid", "jonas", "agnieszka",
	}
	lastNames = []string{
		"smith", "johnson", "williams", "brown", "jones", "garcia", "miller", "davis", "rodriguez", "martinez",
		"hernandez", "lopez", "gonzalez", "wilson", "anderson", "thomas", "taylor", "moore", "jackson", "martin",
		"lee", "perez", "thompson", "white", "harris", "sanchez", "clark", "ramirez", "lewis", "robinson",
		"walker", "young", "allen", "king", "wright", "scott", "torres", "nguyen", "hill", "flores",
		"green", "adams", "nelson", "baker", "hall", "rivera", "campbell", "mitchell", "carter", "roberts",
		"kowalski", "nowak", "andersson", "johansson", "petrovic", "buono", "kazlauskas", "muller", "rossi", "dubois",
	}
	mailDomains = []string{
		"example.com", "example.net", "example.org", "mail.example.com", "inbox.example.net",
		"post.example.org", "users.example.com", "webmail.example.net",
	}
	cities = []string{
		"San Jose", "Austin", "Portland", "Denver", "Chicago", "Boston", "Seattle", "Phoenix", "Atlanta", "Madison",
		"Kristianstad", "Kaunas", "Lublin", "Malmo", "Vilnius", "Krakow", "Lyon", "Porto", "Graz", "Utrecht",
	}
	states     = []string{"CA", "TX", "OR", "CO", "IL", "MA", "WA", "AZ", "GA", "WI", "NY", "FL"}
	streets    = []string{"Main St", "Oak Ave", "Maple Dr", "Cedar Ln", "Pine St", "Elm St", "Park Ave", "Lake Rd", "Hill St", "River Rd"}
	countries  = []string{"US", "US", "US", "SE", "LT", "PL", "FR", "PT", "AT", "NL"}
	currencies = []string{"USD", "EUR", "SEK", "PLN", "GBP"}
	products   = []string{
		"hat", "handbag", "wallet", "scarf", "umbrella", "notebook", "lamp", "mug", "backpack", "headphones",
		"keyboard", "monitor stand", "water bottle", "sunglasses", "jacket", "sneakers", "watch", "charger",
	}
	adjectives = []string{
		"red", "blue", "green", "black", "leather", "wooden", "wireless", "vintage", "compact", "large",
		"small", "organic", "waterproof", "ergonomic", "classic", "modern", "lightweight", "premium",
	}
	dishes = []string{
		"Spaghetti Bolognese", "Chicken Curry", "Beef Stew", "Vegetable Lasagna", "Pancakes", "Caesar Salad",
		"Tomato Soup", "Fish Tacos", "Mushroom Risotto", "Apple Pie", "Banana Bread", "Chili con Carne",
	}
	ingredients = []string{
		"flour", "sugar", "butter", "egg", "milk", "salt", "olive oil", "garlic", "onion", "tomato",
		"basil", "oregano", "black pepper", "chicken breast", "ground beef", "rice", "carrot", "celery",
		"parmesan", "cream", "baking powder", "vanilla extract", "lemon juice", "mushroom", "potato",
	}
	lorem = []string{
		"lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "do",
		"eiusmod", "tempor", "incididunt", "ut", "labore", "et", "dolore", "magna", "aliqua", "enim",
		"ad", "minim", "veniam", "quis", "nostrud", "exercitation", "ullamco", "laboris", "nisi", "aliquip",
		"ex", "ea", "commodo", "consequat", "duis", "aute", "irure", "in", "reprehenderit", "voluptate",
		"velit", "esse", "cillum", "eu", "fugiat", "nulla", "pariatur", "excepteur", "sint", "occaecat",
		"cupidatat", "non", "proident", "sunt", "culpa", "qui", "officia", "deserunt", "mollit", "anim",
		"id", "est", "laborum", "at", "vero", "eos", "accusamus", "iusto", "odio", "dignissimos",
	}
)
