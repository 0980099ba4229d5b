package vaultgen

import "strings"

// english is a list of common English words, most common first (roughly): the head of the
// vaults' vocabulary, drawn Zipf-distributed. Several words come in more than one form (run,
// running, ran) so that word-form matching has something to join.
var english = strings.Fields(`
the of and to in is it that for you was with on as have be at not this but from they his
by or we an were her all she there would their will when one which what about if out up
them do some so can has him into more other time could these two may first then way like
well then our just also new people any after over only know take year good most see work
back think use because day how even want give find here thing many make need made week
through long where much should before right still going those both under never same while
last might great since against home again meeting place around however small found plan
part every own point hand three project small large next early young important few public
bad able today tomorrow yesterday month morning evening night weekend friday monday
tuesday wednesday thursday saturday sunday january february march april june july august
september october november december spring summer autumn winter garden gardens gardening
gardener plant plants planted planting tomato tomatoes seed seeds soil water watering rain
run runs running ran runner walk walked walking hike hiking trail mountain river lake
forest tree trees leaf leaves wolf wolves knife knives child children man men woman women
book books reading read wrote write writing written author chapter story stories novel
idea ideas note notes notebook journal diary list lists task tasks backlog done review
reviewed reviewing draft drafts edit edited editing publish published budget budgets cost
costs price prices money pay paid payment invoice invoices tax taxes bank account accounts
email emails call calls called phone message messages reply replied send sent letter
team teams manager managers client clients customer customers meeting meetings agenda
minutes decision decisions action actions follow deadline deadlines schedule scheduled
calendar event events trip trips travel travelled traveling flight flights hotel train
station airport ticket tickets passport holiday vacation beach city cities country village
house houses kitchen bedroom garage roof window windows door doors wall paint painted
repair repaired repairs fix fixed fixing broken break broke tool tools hammer drill
recipe recipes cook cooking cooked bake baking baked bread butter flour sugar salt pepper
oil garlic onion onions chicken beef fish rice pasta soup salad cheese egg eggs milk
coffee tea breakfast lunch dinner restaurant menu health doctor appointment medicine
exercise gym workout workouts yoga sleep slept tired energy weight diet vitamin
school class classes lesson lessons teacher student students course courses exam exams
learn learned learning study studied studying research paper papers article articles
data database query queries server servers code coding program programs programming
software bug bugs release releases version versions deploy deployed deployment test
tests testing tested design designs designed architecture system systems network
security password backup backups storage disk file files folder folders document
documents report reports slide slides presentation chart charts table tables number
numbers analysis result results metric metrics goal goals quarter quarterly annual
strategy market markets product products feature features launch launched roadmap
customer support ticket issue issues problem problems solution solutions question
questions answer answers discussion discussed discuss talk talked conversation friend
friends family mother father sister brother daughter son wife husband baby birthday
party gift gifts wedding anniversary dog dogs cat cats pet pets walk vet food
music song songs album concert guitar piano movie movies film films show shows series
game games play played playing sport sports football soccer tennis swim swimming bike
cycling car cars drive driving drove driven bus road traffic parking fuel insurance
weather sunny cloudy windy snow storm cold warm hot temperature forecast season
photo photos camera picture pictures art museum gallery history historic ancient culture
language languages french german spanish italian japanese word words sentence grammar
remember remembered forget forgot forgotten think thought believe feel felt felt hope
wish want wanted need needed try tried trying start started starting finish finished
begin began begun stop stopped open opened close closed keep kept leave left arrive
arrived buy bought sell sold build built grow grew grown teach taught catch caught bring
brought speak spoke spoken choose chose chosen fly flew flown draw drew drawn throw threw
meet met spend spent tell told say said seek sought fight fought eat ate eaten
quick quickly slow slowly careful carefully simple simply clear clearly better best
worse worst easy easier hard harder difficult possible impossible likely maybe perhaps
probably certainly really actually especially usually often sometimes rarely never
always already almost enough quite rather very too also together alone instead
between among within without during until above below behind beside near far inside
outside upstairs downstairs north south east west left right center middle corner
price value quality quantity amount total average percent growth increase decrease
change changes changed changing move moved moving update updated updates upgrade
install installed setup config configuration option options setting settings default
error errors warning warnings log logs debug monitor monitoring alert alerts incident
outage latency memory cpu performance benchmark benchmarks cache index indexes search
searching searched find finding found filter filters sort sorted page pages link links
summary summaries overview outline detail details example examples template templates
habit habits routine routines morning reflection gratitude mood happy sad angry calm
stress stressed relaxed focus focused distraction productive productivity priority
priorities weekly monthly yearly daily review retrospective lessons learned insight
insights principle principles framework frameworks method methods process processes
contract contracts lawyer legal policy policies rule rules law laws government election
vote news politics economy economic inflation interest rate rates loan mortgage rent
salary bonus career job jobs interview interviews resume hire hired hiring colleague
colleagues boss office remote hybrid commute desk chair monitor laptop keyboard mouse
`)

// syllables make the names of people, places and projects: the long tail of a vault's words.
var syllables = strings.Fields(`ka lo mi ne su ra ti po ve da gu ri sa mo te zi an el or is un
bar del fin gar hol jen kor lin mar nor pel quin ros sten tor val win yar zel bran cas dor
fen gil hart ivo jas kel lum mer nix ost pra rud sel tam ulm ver wes xan yor zan`)

// tagWords are the tags a vault uses, with a few nested ones.
var tagWords = strings.Fields(`work home idea project meeting reading book recipe travel
health finance family errands someday reference journal review people place learning
research writing draft important urgent waiting follow-up archive inbox garden music film
code design ops security personal goals habits fitness cooking shopping house car pets
kids school taxes insurance legal career interview conference talk podcast article paper
project/alpha project/beta project/gamma area/health area/money area/home status/active
status/done status/paused type/person type/place type/book type/meeting`)

// relationTypes are the types of typed relations ("- works_with [[Name]]").
var relationTypes = strings.Fields(`works_with related_to part_of depends_on inspired_by
mentions reports_to lives_in authored_by follows`)
