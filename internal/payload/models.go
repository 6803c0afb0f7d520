package payload

import (
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/timestamppb"

	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// The fixed shape of the nested models, documented in docs/payloads-and-codecs.md.
const (
	transactionsPerPayment = 2
	itemsPerTransaction    = 5
	ingredientsPerRecipe   = 6
	propertiesPerRecord    = 9
)

// MaxIntValue is the value the int model carries, as the REST-vs-gRPC study sent.
const MaxIntValue int32 = 2147483647

func genUsers(g *gen, n int) proto.Message {
	users := make([]*pb.User, n)
	backing := make([]pb.User, n) // one allocation instead of n
	for i := range users {
		first, last := g.pick(firstNames), g.pick(lastNames)
		suffix := strconv.Itoa(g.between(1, 9999))
		username := first + "." + last + suffix
		u := &backing[i]
		u.Uid = g.uuid()
		u.Email = username + "@" + g.pick(mailDomains)
		u.Username = username
		u.ProfilePictureUrl = "https://images.example.com/avatars/" + u.Uid[:8] + "/" + first + "-" + last + ".jpg"
		u.Age = int32(g.between(18, 90))
		users[i] = u
	}
	return &pb.UserList{Users: users}
}

func genPayments(g *gen, n int) proto.Message {
	payments := make([]*pb.Payment, n)
	for i := range payments {
		payments[i] = genPayment(g)
	}
	return &pb.PaymentList{Payments: payments}
}

func genPayment(g *gen) *pb.Payment {
	p := &pb.Payment{
		Intent:      g.pick([]string{"sale", "authorize", "order"}),
		Payer:       &pb.Payer{PaymentMethod: g.pick([]string{"paypal", "credit_card"})},
		NoteToPayer: g.sentence(5, 9),
		RedirectUrls: &pb.RedirectUrls{
			ReturnUrl: "https://shop.example.com/return",
			CancelUrl: "https://shop.example.com/cancel",
		},
	}
	for range transactionsPerPayment {
		p.Transactions = append(p.Transactions, genTransaction(g))
	}
	return p
}

func genTransaction(g *gen) *pb.Transaction {
	currency := g.pick(currencies)
	items := make([]*pb.Item, itemsPerTransaction)
	subtotal, tax := 0, 0
	for i := range items {
		qty, price, itemTax := g.between(1, 5), g.between(99, 25_000), g.between(0, 2_000)
		subtotal += qty * price
		tax += qty * itemTax
		product := g.pick(products)
		items[i] = &pb.Item{
			Name:        product,
			Description: titleCase(g.pick(adjectives)) + " " + product + ".",
			Quantity:    strconv.Itoa(qty),
			Price:       money(price),
			Tax:         money(itemTax),
			Sku:         "product" + strconv.Itoa(g.between(1, 9999)),
			Currency:    currency,
		}
	}
	shipping, handling, discount, insurance := g.between(0, 2_500), g.between(0, 500), g.between(0, 300), g.between(0, 900)
	total := subtotal + tax + shipping + handling - discount + insurance
	first, last := g.pick(firstNames), g.pick(lastNames)
	return &pb.Transaction{
		Amount: &pb.Amount{
			Total:    money(total),
			Currency: currency,
			Details: &pb.AmountDetails{
				Subtotal: money(subtotal), Tax: money(tax), Shipping: money(shipping),
				HandlingFee: money(handling), ShippingDiscount: money(discount), Insurance: money(insurance),
			},
		},
		Description:    g.sentence(3, 6),
		Custom:         "EBAY_EMS_" + g.digits(14),
		InvoiceNumber:  g.digits(11),
		SoftDescriptor: "ECHI" + g.digits(7),
		ItemList: &pb.ItemList{
			Items: items,
			ShippingAddress: &pb.ShippingAddress{
				RecipientName: titleCase(first) + " " + titleCase(last),
				Line1:         strconv.Itoa(g.between(1, 9999)) + " " + g.pick(streets),
				Line2:         "Unit #" + strconv.Itoa(g.between(1, 400)),
				City:          g.pick(cities),
				CountryCode:   g.pick(countries),
				PostalCode:    g.digits(5),
				Phone:         "011" + g.digits(12),
				State:         g.pick(states),
			},
		},
	}
}

func genRecipes(g *gen, n int) proto.Message {
	recipes := make([]*pb.Recipe, n)
	for i := range recipes {
		r := &pb.Recipe{Name: g.pick(dishes), Description: g.sentence(8, 16)}
		for range ingredientsPerRecipe {
			r.Ingredients = append(r.Ingredients, &pb.RecipeIngredient{
				Ingredient: &pb.Ingredient{Name: g.pick(ingredients), Description: g.sentence(3, 7)},
				Quantity:   int32(g.between(1, 500)),
				Type:       pb.UnitType(g.between(int(pb.UnitType_OUNCE), int(pb.UnitType_ITEM))),
			})
		}
		recipes[i] = r
	}
	return &pb.RecipeList{Recipes: recipes}
}

func genText(g *gen, n int) proto.Message {
	return &pb.Text{Text: string(g.appendLorem(make([]byte, 0, n+16), n, 0))}
}

// genAllTypes makes n properties in all: full records of 9 properties, then
// one record holding the first n%9 of them in declaration order. Every set
// value is non-zero, so every codec carries exactly n properties.
func genAllTypes(g *gen, n int) proto.Message {
	records := make([]*pb.AllTypes, 0, (n+propertiesPerRecord-1)/propertiesPerRecord)
	base := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	for left := n; left > 0; left -= propertiesPerRecord {
		r := &pb.AllTypes{}
		setters := []func(){
			func() { r.TextField = g.sentence(2, 5) },
			func() { r.BoolField = true },
			func() { r.ByteField = int32(g.between(1, 255)) },
			func() {
				r.DateTimeField = timestamppb.New(base.Add(time.Duration(g.r.Int64N(int64(365*24*time.Hour))) + 1))
			},
			func() { r.DecimalField = money(g.between(1, 100_000_000)) },
			func() { r.FloatField = float32(g.between(1, 1_000_000)) / 100 },
			func() { r.IntField = int32(g.between(1, 2_000_000_000)) },
			func() { r.ShortField = int32(g.between(1, 32_767)) },
			func() { r.LongField = g.r.Int64N(1<<62) + 1 },
		}
		for _, set := range setters[:min(left, propertiesPerRecord)] {
			set()
		}
		records = append(records, r)
	}
	return &pb.AllTypesList{Records: records}
}

func genInt(_ *gen, n int) proto.Message {
	if n == 0 {
		return &pb.Int{}
	}
	return &pb.Int{Value: MaxIntValue}
}

func genInts(_ *gen, n int) proto.Message {
	values := make([]int32, n)
	for i := range values {
		values[i] = int32(i)
	}
	return &pb.Ints{Values: values}
}

func genTextFile(g *gen, n int) proto.Message {
	return &pb.Blob{
		Name:      "document.txt",
		MediaType: "text/plain; charset=utf-8",
		Content:   g.appendLorem(make([]byte, 0, n+16), n, 80),
	}
}

// genBlob imitates a PDF: object syntax in plain text around streams of
// incompressible bytes, which is what a PDF's deflated content streams are.
func genBlob(g *gen, n int) proto.Message {
	b := make([]byte, 0, n+64)
	b = append(b, "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"...)
	for obj := 1; len(b) < n; obj++ {
		b = append(b, strconv.Itoa(obj)+" 0 obj\n<< /Length 4096 /Filter /FlateDecode >>\nstream\n"...)
		for range 512 {
			u := g.r.Uint64()
			b = append(b, byte(u), byte(u>>8), byte(u>>16), byte(u>>24), byte(u>>32), byte(u>>40), byte(u>>48), byte(u>>56))
		}
		b = append(b, "\nendstream\nendobj\n"...)
	}
	if n >= 6 {
		b = append(b[:n-6], "%%EOF\n"...)
	}
	return &pb.Blob{Name: "document.pdf", MediaType: "application/pdf", Content: b[:n]}
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// allTypesLen counts the properties set, the unit the model's count is in.
func allTypesLen(m proto.Message) int {
	n := 0
	for _, r := range m.(*pb.AllTypesList).Records {
		r.ProtoReflect().Range(func(protoreflect.FieldDescriptor, protoreflect.Value) bool {
			n++
			return true
		})
	}
	return n
}

func blobLen(m proto.Message) int { return len(m.(*pb.Blob).Content) }
